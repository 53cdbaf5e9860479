// Tests of the hjson codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
