#pragma once
namespace gapscope {
// Python's round(x, ndigits) on a double: correctly rounded, ties to even on the exact
// binary value (so round(2.675, 2) == 2.67 and round(0.125, 2) == 0.12).
double pyRound(double x, int ndigits);
} // namespace gapscope
