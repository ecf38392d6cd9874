import * as crypto from 'crypto';

// Define a User class with sensitive information
class User {
	constructor(public id: number, public name: string, public email: string) {}
}

// Define a LogEntry class for storing logs
class LogEntry {
	constructor(public timestamp: Date, public message: string) {}
}

// Define a Logger class to handle logging
class Logger {
	private logs: LogEntry[] = [];

	log(message: string) {
		this.logs.push(new LogEntry(new Date(), message));
	}

	getLogs(): LogEntry[] {
		return this.logs;
	}
}

// Define an AuthService class to handle user authentication
class AuthService {
	private users: User[] = [];
	private logger: Logger;

	constructor(logger: Logger) {
		this.logger = logger;
	}

	registerUser(id: number, name: string, email: string) {
		const newUser = new User(id, name, email);
		this.users.push(newUser);
		this.logger.log(`User registered: ${name}`);
	}

	private hashPassword(password: string): string {
		return crypto.createHash('sha256').update(password).digest('hex');
	}

	// Method to authenticate a user
	authenticateUser(id: number, password: string): boolean {
		const user = this.users.find(user => user.id === id);
		if (!user) {
			this.logger.log('Authentication failed: User not found');
			return false;
		}
		// Placeholder for actual password check
		const hashedPassword = this.hashPassword(password);
		if (hashedPassword === 'cd535f9816d3c10670c8cb008b35751ae87f8fb91c15bc86efe2d125e7897d77') {
			this.logger.log(`User authenticated: ${user.name}`);
			return true;
		} else {
			this.logger.log('Authentication failed: Incorrect password');
			return false;
		}
	}
}

// Setup the logger and auth service
const logger = new Logger();
const authService = new AuthService(logger);

// Register a new user
authService.registerUser(1, 'John Doe', 'john.doe@example.com');

// Attempt to authenticate the user with the correct password
const isAuthenticatedCorrect = authService.authenticateUser(1, 'correctPassword');
console.log(`Authentication with correct password: ${isAuthenticatedCorrect}`);


// Attempt to authenticate the user with an incorrect password
const isAuthenticatedIncorrect = authService.authenticateUser(1, 'wrongPassword');
console.log(`Authentication with incorrect password: ${isAuthenticatedIncorrect}`);
