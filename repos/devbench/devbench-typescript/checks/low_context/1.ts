import { strict as assert } from 'assert';
assert.equal(emp.name, 'John Doe');
assert.equal(emp.salary, 50000);