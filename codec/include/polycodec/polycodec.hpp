#pragma once
/// Umbrella header of the polycodec codec library.

#include "polycodec/buffer.hpp"
#include "polycodec/codec.hpp"
#include "polycodec/document.hpp"
#include "polycodec/error.hpp"
#include "polycodec/format.hpp"
#include "polycodec/media_type.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"
#include "polycodec/stream.hpp"
