(async () => {
    const userData = await fetchUserData(1);
    console.assert(userData.id === 1, 'User ID should be 1');

    const postData = await fetchPostData(1);
    console.assert(postData.id === 1, 'Post ID should be 1');

    const commentsData = await fetchCommentsData(1);
    console.assert(commentsData.id === 1, 'Comment ID should be 1');
})();