// Tests of the msgpack codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
