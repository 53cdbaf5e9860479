// Tests of the ron codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
