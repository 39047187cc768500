#pragma once
namespace gapscope {
// Python's round(x, ndigits) on a double: correctly rounded, ties to even on the exact
// binary value (so round(2.675, 2) == 2.67 and round(0.125, 2) == 0.12).
// Like Python: NaN and infinities come back unchanged, ndigits > 323 returns x, ndigits < -308
// returns a zero of x's sign, negative ndigits round to tens, hundreds, ... The one
// difference: where Python raises OverflowError (round(1.7e308, -308)) this returns +-inf.
double pyRound(double x, int ndigits);
} // namespace gapscope
