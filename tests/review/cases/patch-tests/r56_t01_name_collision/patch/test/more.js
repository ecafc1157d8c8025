const test = require('tape');
const sum = require('../sum');

test('adds numbers', (t) => {
  t.equal(sum(-1, -2), -3);
  t.end();
});
