// Tests of the edn codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
