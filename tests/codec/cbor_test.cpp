// Tests of the cbor codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
