// Tests of the csv codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
