// exala/rounding.hpp - the IEEE rounding directions offered by every
// correctly rounded ExaLA routine.
#pragma once

namespace exala {

enum class rounding {
  to_nearest_even,  // IEEE roundTiesToEven (the default)
  toward_zero,      // roundTowardZero
  upward,           // roundTowardPositive
  downward,         // roundTowardNegative
};

}  // namespace exala
