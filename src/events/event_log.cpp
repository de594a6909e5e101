#include "events/event_log.hpp"

#include "sim/check.hpp"

namespace twice {

void event_log::add_observer(event_observer* observer) {
  TWICE_CHECK(observer != nullptr);
  observers_.push_back(observer);
}

}  // namespace twice
