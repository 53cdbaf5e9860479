// Tests of the smile codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
