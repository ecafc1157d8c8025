const { sum } = require('../src/sum');

describe('sum', () => {
  it('adds', () => {
    expect(sum(20, 30)).toBe(50);
  });

  it('adds zero', () => {
    expect(sum(0, 0)).toBe(0);
  });
});
