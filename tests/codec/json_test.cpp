// Tests of the json codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
