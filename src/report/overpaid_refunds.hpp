#pragma once
// Which refunds a report marks red: those no_double_payment found paying an
// invoice again (a refund after the first of an invoice the violated
// verdict names in its detail or evidence). One determination for the whole
// page, so the timeline's flags and calls and the ledger tables mark the
// same refunds. Two jobs may share an invoice and split its amount: a
// second refund of an invoice the verdict does not name stays green.

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace twice {

struct verdict;
struct refund_mark;

// The refs ("re_2") of the refunds to mark red.
std::set<std::string, std::less<>> overpaying_refunds(const std::vector<verdict>& verdicts,
                                                      const std::vector<refund_mark>& refunds);

// Whether `text` has `word` as a whole word (job and invoice names are
// words: letters, digits, '_' and '-'), so "inv_1" is not found in "inv_17".
bool names_word(std::string_view text, std::string_view word);

}  // namespace twice
