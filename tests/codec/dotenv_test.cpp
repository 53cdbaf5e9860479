// Tests of the dotenv codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
