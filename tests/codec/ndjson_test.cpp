// Tests of the ndjson codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
