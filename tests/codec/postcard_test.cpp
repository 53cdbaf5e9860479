// Tests of the postcard codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
