package mockserver

import "strings"

// vocabularyText is the output vocabulary: common lowercase English words
// separated by single spaces. Each output token is " " + one word.
//
// Invariant: every " "+word is exactly one token in tiktoken's o200k_base
// (the builtin tokenizer), and o200k's pre-tokenizer splits a run of such
// words at each space, so the client's token count of any concatenation of
// emitted tokens equals the number of tokens emitted. words_test.go proves
// it for every word and for a long concatenation. It is a constant so that
// no package state can be mutated.
const vocabularyText = "" +
	"the of and to in is was for on that with as " +
	"by at from his it an were are which this be or " +
	"has had first one their its new after but who not they " +
	"have her she two been other when there all during into school " +
	"time may years more most only over city some world would where " +
	"later up such used many can state about national out known university " +
	"united then also made age being game team area high called year " +
	"part well three before these both until under while war people film " +
	"series life work family second place group band since season through north " +
	"south east west music number way house between day back long little " +
	"great old small large good own right public last home general main " +
	"early water power local end even form line set name point case " +
	"fact system level head side hand body word story law order light " +
	"book river land field road center report force money market rate study " +
	"free full real best sure open kind plan run air job model " +
	"short care cost past show color data idea page size room food " +
	"rest test move sound ground close price space type lead basic single " +
	"nature week month class action town country church person program period office " +
	"history letter member board council stage child heart role paper mind future " +
	"support start value region friend change turn share play art mother father " +
	"woman man women men reason door foot peace table fire wall bank " +
	"voice matter garden window summer winter spring morning evening night island ocean " +
	"mountain forest flower tree stone glass metal gold silver horse bird fish " +
	"animal doctor teacher student worker king queen army ship train car plane " +
	"bridge street village lake sea sky sun moon star rain snow wind " +
	"cloud storm dream memory question answer problem result effect cause method process " +
	"theory practice experience knowledge language science energy health simple clear strong young " +
	"dark bright quiet happy late easy hard warm cold deep wide fast " +
	"slow near far above below inside outside always never often sometimes again " +
	"together however because without within around against among across toward"

// Words returns the output vocabulary, in order, as a fresh slice. Each
// output token is " " + one of these words. Tests elsewhere use it to
// cross-check token counts.
func Words() []string {
	return strings.Fields(vocabularyText)
}
