import assert from 'assert';

// Define a custom error class
class CustomError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'CustomError';
    }
}

// Utility function that may throw an error
function riskyOperation(flag: boolean): string {
    if (flag) {
        throw new CustomError('An error occurred during riskyOperation');
    }
    return 'Operation successful';
}

// A function that performs multiple risky operations
async function performOperations(): Promise<string[]> {
    const results: string[] = [];
    for (let i = 0; i < 3; i++) {
        try {
            const result = riskyOperation(i % 2 === 0);
            results.push(result);
        } catch (error) {
            if (error instanceof CustomError) {
                console.error('Caught custom error:', error.message);
                results.push('Custom error handled');
            } else {
                console.error('Caught unknown error:', error);
                throw error;
            }
        } finally {
            console.log('Cleanup resources for iteration:', i);
        }
    }
    return results;
}

// Main function to run the operations
async function main() {
    let finalResults: string[] = [];
    try {
        finalResults = await performOperations();
    } catch (error) {
        console.error('Error in main function:', error);
    }

    assert(Array.isArray(finalResults), 'Expected finalResults to be an array');
    assert(finalResults.length === 3, 'Expected three results in finalResults');
    assert(finalResults[0] === 'Custom error handled', 'First result should handle custom error');
    assert(finalResults[1] === 'Operation successful', 'Second result should be successful');
    assert(finalResults[2] === 'Custom error handled', 'Third result should handle custom error');

    console.log('Operations completed with results:', finalResults);
}

// Execute the main function
main();
