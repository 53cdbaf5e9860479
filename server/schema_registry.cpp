#include "schema_registry.hpp"

namespace polycodec::server {

result<schema_registry> load_schema_registry(const std::string& dir) {
    (void)dir;
    return schema_registry{};
}

}  // namespace polycodec::server
