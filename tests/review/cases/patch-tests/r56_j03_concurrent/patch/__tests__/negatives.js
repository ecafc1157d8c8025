const { sum } = require('../src/sum');

test.concurrent('sum adds negatives', async () => {
  expect(sum(-1, -2)).toBe(-3);
});
