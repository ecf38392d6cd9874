assert(TaskScheduler.toString().includes('class TaskScheduler'));
// Note: JSDoc comments are not accessible via toString(), so documentation checks are not possible
