// Tests of the yaml codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
