#pragma once
// What a load hands to a tab (model/document/LoadedDocument), and how the page that takes it
// analyses it.

#include "model/document/LoadedDocument.h"

namespace gapscope {

// How a page analyses the document it opened: in the background (the window), or on the
// calling thread before it returns (screenshots, tests: the same page code, waited for).
enum class OpenMode
{
    Background,
    Now,
};

} // namespace gapscope
