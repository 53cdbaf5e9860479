// Tests of the bencode codec: spec examples, error positions, exact encodings.
#include "support/support.hpp"
