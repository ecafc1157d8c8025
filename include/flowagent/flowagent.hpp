// <flowagent/flowagent.hpp>: the C++ API in one include. See docs/ARCHITECTURE.md.
#pragma once

#include "flowagent/agent.hpp"
#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/expected.hpp"
#include "flowagent/filters.hpp"
#include "flowagent/host.hpp"
#include "flowagent/json.hpp"
#include "flowagent/llm.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "flowagent/strategy.hpp"
#include "flowagent/tools.hpp"
#include "flowagent/version.hpp"
#include "flowagent/workspace.hpp"
