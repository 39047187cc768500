#pragma once
// `gapscope index ROOT... --output fleet.sqlite [--shard I/N] [--threads N]` and
// `gapscope index --merge PART... --output fleet.sqlite`: the fleet index (model/fleet).

#include <QStringList>

#include <cstdio>

namespace gapscope {

int runIndexCommand(const QStringList& args, FILE* out, FILE* err);

} // namespace gapscope
