#include "schema_loader.hpp"

namespace polycodec::cli {

// TODO(#4): parse postcard schemas once the postcard codec exists.
result<void> load_schema_file(const std::string& path, transcode_options& opt) {
    (void)opt;
    return fail(make_error(errc::not_implemented,
                           "postcard schemas are not implemented yet (" + path + ")"));
}

}  // namespace polycodec::cli
