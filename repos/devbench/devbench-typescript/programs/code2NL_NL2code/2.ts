import assert from 'assert';

/**
 * A class representing a simple task scheduler that can manage and execute tasks.
 * 
 * This class allows for adding, executing, and removing tasks by their names.
 * It ensures that tasks with duplicate names cannot be added, and provides
 * appropriate error handling for operations on non-existent tasks.
 * 
 * ### Example
 * 
 * typescript
 * const scheduler = new TaskScheduler();
 * scheduler.addTask('task1', () => console.log('Executing Task 1'));
 * scheduler.executeTask('task1');
 * scheduler.removeTask('task1');
 * 
 * 
 * @class TaskScheduler
 */
class TaskScheduler {
    private tasks: Map<string, () => void>;

    constructor() {
        this.tasks = new Map();
    }

    /**
     * Adds a new task to the scheduler.
     * @param name - The name of the task.
     * @param task - The task function to be executed.
     */
    addTask(name: string, task: () => void): void {
        if (this.tasks.has(name)) {
            throw new Error(`Task with name ${name} already exists.`);
        }
        this.tasks.set(name, task);
    }

    /**
     * Executes the task with the given name.
     * @param name - The name of the task to execute.
     */
    executeTask(name: string): void {
        const task = this.tasks.get(name);
        if (!task) {
            throw new Error(`Task with name ${name} does not exist.`);
        }
        task();
    }

    /**
     * Removes a task from the scheduler.
     * @param name - The name of the task to remove.
     */
    removeTask(name: string): void {
        if (!this.tasks.delete(name)) {
            throw new Error(`Task with name ${name} does not exist.`);
        }
    }
}

// Example usage:
const scheduler = new TaskScheduler();
scheduler.addTask('task1', () => console.log('Executing Task 1'));
scheduler.addTask('task2', () => console.log('Executing Task 2'));
scheduler.executeTask('task1');
scheduler.removeTask('task1');

// Assertions
assert.throws(() => scheduler.executeTask('task1'), /does not exist/);
scheduler.executeTask('task2');
scheduler.removeTask('task2');

// Clean up resources
assert.throws(() => scheduler.executeTask('task2'), /does not exist/);
