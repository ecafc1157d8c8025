const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../calc');

test('adds', () => {
  const got = add(2, 3);
  if (got !== 5) assert.fail(`add(2, 3) = ${got}`);
});
