#include <iostream>
#include <vector>
#include <memory>
#include <cassert>
#include <sstream>

/**
 * @brief Interface for a task in a workflow pipeline.
 */
class ITask {
public:
    virtual ~ITask() = default;
    virtual void execute() = 0;
};

/**
 * @brief Example task that prints a message.
 */
class PrintTask : public ITask {
public:
    PrintTask(const std::string& message) : message_(message) {}
    void execute() override {
        std::cout << message_ << std::endl;
    }
private:
    std::string message_;
};

/**
 * @brief Manages execution of a sequence of tasks.
 */
class TaskManager {
public:
    /**
     * @brief Add a task to the pipeline.
     * @param task A unique pointer to the task to add.
     */
    void addTask(std::unique_ptr<ITask> task) {
        tasks_.push_back(std::move(task));
    }

    /**
     * @brief Execute all tasks in the pipeline.
     */
    void executeAll() {
        for (const auto& task : tasks_) {
            task->execute();
        }
    }

private:
    std::vector<std::unique_ptr<ITask>> tasks_;
};

int main() {
    TaskManager manager;
    manager.addTask(std::make_unique<PrintTask>("Task 1"));
    manager.addTask(std::make_unique<PrintTask>("Task 2"));
    // Execute all tasks
    
    manager.executeAll();


    // Assertions to verify the expected behavior
    std::ostringstream oss;
    std::streambuf* oldCoutBuf = std::cout.rdbuf(oss.rdbuf());
    manager.executeAll();
    std::cout.rdbuf(oldCoutBuf);
    assert(oss.str() == "Task 1\nTask 2\n");

    return 0;
}
