// Tests of the json5 codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
