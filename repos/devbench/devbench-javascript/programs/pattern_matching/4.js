// Mock axios for testing
const axios = {
    get: async (url) => {
        if (url.includes('/users/')) {
            return { status: 200, data: { id: 1, name: 'John Doe' } };
        } else if (url.includes('/posts/')) {
            return { status: 200, data: { id: 1, title: 'Test Post' } };
        } else if (url.includes('/comments/')) {
            return { status: 200, data: { id: 1, text: 'Test Comment' } };
        }
        throw new Error('Not found');
    }
};

// Function to fetch user data from an API
async function fetchUserData(userId) {
    try {
        const response = await axios.get(`https://api.example.com/users/${userId}`);
        if (response.status === 200) {
            return response.data;
        } else {
            throw new Error('Failed to fetch user data');
        }
    } catch (error) {
        console.error('Error fetching user data:', error);
        throw error;
    }
}

// Function to fetch post data from an API
async function fetchPostData(postId) {
    try {
        const response = await axios.get(`https://api.example.com/posts/${postId}`);
        if (response.status === 200) {
            return response.data;
        } else {
            throw new Error('Failed to fetch post data');
        }
    } catch (error) {
        console.error('Error fetching post data:', error);
        throw error;
    }
}

// Function to fetch comments data from an API
async function fetchCommentsData(commentId) {
    
    try {
        const response = await axios.get(`https://api.example.com/comments/${commentId}`);
        if (response.status === 200) {
            return response.data;
        } else {
            throw new Error('Failed to fetch comments data');
        }
    } catch (error) {
        console.error('Error fetching comments data:', error);
        throw error;
    }
}


// Assertions
(async () => {
    const userData = await fetchUserData(1);
    console.assert(userData.id === 1, 'User ID should be 1');

    const postData = await fetchPostData(1);
    console.assert(postData.id === 1, 'Post ID should be 1');

    const commentsData = await fetchCommentsData(1);
    console.assert(commentsData.id === 1, 'Comment ID should be 1');
})();
