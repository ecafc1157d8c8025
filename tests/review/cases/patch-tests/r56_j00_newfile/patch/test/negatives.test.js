const { sum } = require('../src/sum');

describe('sum', () => {
  it('adds negatives', () => {
    expect(sum(-1, -2)).toBe(-3);
  });
});
