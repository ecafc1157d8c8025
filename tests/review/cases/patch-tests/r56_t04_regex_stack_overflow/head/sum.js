module.exports = (a, b) => Math.abs(a - b);
module.exports.twice = (a) => 2 * a;
