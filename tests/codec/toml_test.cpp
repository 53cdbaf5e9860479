// Tests of the toml codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
