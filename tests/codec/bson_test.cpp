// Tests of the bson codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
