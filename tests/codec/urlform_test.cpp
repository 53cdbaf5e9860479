// Tests of the urlform codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
