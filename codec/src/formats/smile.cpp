// smile: not implemented yet (the registry answers errc::not_implemented).
#include "formats.hpp"

namespace polycodec::detail {

const codec_functions smile_codec{};

}  // namespace polycodec::detail
