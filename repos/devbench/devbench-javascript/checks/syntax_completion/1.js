const assert = require('assert');

// Mock fs and path modules for testing
fs.promises = {
    stat: async (filePath) => ({ isFile: () => true })
};
fs.readFile = (filePath, encoding, callback) => callback(null, 'mock file content');
fs.writeFile = (filePath, data, encoding, callback) => callback(null);

// Test that main function exists and can be called
assert(typeof main === 'function', 'main should be a function');
assert(typeof readFileAsync === 'function', 'readFileAsync should be a function');
assert(typeof writeFileAsync === 'function', 'writeFileAsync should be a function');
assert(typeof copyFileWithHandling === 'function', 'copyFileWithHandling should be a function');

// Test the syntax completion by calling main
main().then(() => {
    console.log('Test completed successfully');
}).catch(err => {
    console.error('Test failed:', err);
});