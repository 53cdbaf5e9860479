#pragma once
// The descriptor model lives in detail/protobuf_schema.hpp, shared by protobuf and protojson.
#include "detail/protobuf_schema.hpp"
