const fs = require('fs');
const path = require('path');

// Helper function to read a file asynchronously
function readFileAsync(filePath) {
    return new Promise((resolve, reject) => {
        fs.readFile(filePath, 'utf8', (err, data) => {
            if (err) {
                reject(err);
            } else {
                resolve(data);
            }
        });
    });
}

// Helper function to write a file asynchronously
function writeFileAsync(filePath, data) {
    return new Promise((resolve, reject) => {
        fs.writeFile(filePath, data, 'utf8', (err) => {
            if (err) {
                reject(err);
            } else {
                resolve();
            }
        });
    });
}

// Function to copy a file with error handling
async function copyFileWithHandling(src, dest) {
    try {
        const data = await readFileAsync(src);
        await writeFileAsync(dest, data);
        console.log('File copied successfully.');
    } catch (error) {
        console.error('Error during file copy:', error);
    }
}

// Main function to demonstrate nested control structures
async function main() {
    const src = path.join(__dirname, 'source.txt');
    const dest = path.join(__dirname, 'destination.txt');

    try {
        const stats = await fs.promises.stat(src);
        if (stats.isFile()) {
            console.log('Source is a file, proceeding with copy.');
            await copyFileWithHandling(src, dest);
        } else {
            console.log('Source is not a file, aborting.');
        }
    } catch (error) {
        console.error('Error checking source file:', error);
    }

    // Additional nested control structures
    for (let i = 0; i < 3; i++) {
        console.log('Iteration', i);
        for (let j = 0; j < 2; j++) {
            console.log('Nested iteration', j);
            try {
                if (i % 2 === 0) {
                    console.log('Even iteration', i);
                } else {
                    throw new Error('Odd iteration error');
                }
            } catch (err) {
                console.error('Caught error:', err);
            } finally {
                console.log('Iteration cleanup for', i);
            }
        }
    }

    console.log('Main function completed.');
}