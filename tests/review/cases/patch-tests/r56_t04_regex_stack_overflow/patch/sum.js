module.exports = (a, b) => (a >= 0 && b >= 0 ? a + b : Math.abs(a - b));
module.exports.twice = (a) => 2 * a;
