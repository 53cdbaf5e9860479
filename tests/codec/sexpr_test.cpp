// Tests of the sexpr codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
