package agenticcode

import (
	"math"
	"math/big"
)

// ln2 to 40 digits, for pyLog's argument reduction.
var ln2, _ = new(big.Float).SetPrec(160).SetString("0.6931471805599453094172321214581765680755")

// pyLog is the natural logarithm rounded correctly to float64, as
// glibc's log (which Python's math.log calls) returns it; Go's math.Log
// can be an ulp off, which would show in the mu and sigma that
// manifest.json prints. It sums atanh's series in 160-bit arithmetic:
// ln(m 2^e) = e ln 2 + 2 atanh((m-1)/(m+1)), m in [1/sqrt2, sqrt2).
func pyLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.Log(x)
	}
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	const prec = 160
	m := new(big.Float).SetPrec(prec).SetFloat64(frac)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	num := new(big.Float).SetPrec(prec).Sub(m, one)
	den := new(big.Float).SetPrec(prec).Add(m, one)
	z := new(big.Float).SetPrec(prec).Quo(num, den)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(z)
	for k := 1; k < 200 && term.Sign() != 0; k += 2 {
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(k)))
		sum.Add(sum, t)
		if t.MantExp(nil)-sum.MantExp(nil) < -prec {
			break
		}
		term.Mul(term, z2)
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	sum.Add(sum, new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(exp))))
	f, _ := sum.Float64()
	return f
}
