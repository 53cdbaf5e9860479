// Tests of the ini codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
