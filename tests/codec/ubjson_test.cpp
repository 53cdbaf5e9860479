// Tests of the ubjson codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
