const { sum } = require('../src/sum');

describe('sum', () => {
  it('adds', () => {
    expect(sum(20, 30)).toBe(50);
    expect(sum(-1, -2)).toBe(-3);
  });

  it('adds zero', () => {
    expect(sum(0, 0)).toBe(0);
  });
});
