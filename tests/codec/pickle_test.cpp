// Tests of the pickle codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
