"""The grammar of the Oracle-text templates the compiler reads (lark, Earley), and the
transformer that turns a parse into card-data fragments (`engine.carddb`'s vocabulary).

The input is one ability's text, normalized by `compiler.normalize`: reminder text gone,
the card's own name and "this creature" (artifact, land, Aura, ...) written `~`,
punctuation set off by spaces, the case kept. Every literal word matches in any case (a
sentence starts with a capital); a creature type is a capitalized word no rule names. Each
template is one rule below; a sentence that no rule derives is reported by the compiler
as unsupported, with the sentence.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Final

from lark import Lark, Token, Transformer, UnexpectedInput, v_args

from ..engine.constants import COLOR_WORDS, colors_to_letters
from ..engine.vocab import KEYWORDS, PARAM_KEYWORDS, STATIC_CONDITIONS

# Keywords as Oracle text writes them ("first strike"), longest first so that the
# terminal prefers "double strike" to a shorter match.
_KEYWORD_WORDS = sorted(
    (k.replace("_", " ") for k in KEYWORDS - PARAM_KEYWORDS), key=lambda w: (-len(w), w)
)

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip

# "white" -> "W": the engine's color words, as card data writes colors.
COLOR_OF_WORD = {w: colors_to_letters(bit)[0] for w, bit in COLOR_WORDS.items()}

# Basic landcycling's effect (CR 702.29e): "Search your library for a basic land card,
# reveal it, put it into your hand, then shuffle."
BASIC_LANDCYCLING: Final[dict[str, Any]] = {"search_basic_land": {"to": "hand"}}


def typecycling(land_type: str) -> dict[str, Any]:
    """Landcycling of a basic land type's effect (702.29e): "Search your library for an
    Island card, reveal it, put it into your hand, then shuffle." """
    return {"search_basic_land": {"to": "hand", "land_type": land_type}}


# What "it" names after "Whenever another creature you control enters": the permanent that
# entered, which effects can't name yet.
ENTERED: Final = "<entered>"
# Filter words read only where a target is chosen (status, combat): a group or a trigger's
# filter matches by characteristics and refuses them.
_TARGET_STATUS: Final = ("tapped", "untapped", "in_combat", "attacking", "blocking")

GRAMMAR = r"""
// ------------------------------------------------------------------ entry points
spell: sentences
activated: cost ":" sentences restriction?
triggered: ability_word? trigger "," intervening? sentences
static: static_sentence "." (doesnt_remove ".")?
    | "during" "your" "turn" "," static_sentence "." -> static_your_turn
    | ability_word? static_sentence _as_long_as static_cond "." -> static_as_long_as
    | ability_word? _as_long_as static_cond "," static_sentence "." -> static_as_long_as_first
    | affected _has keywords _during_your_turn _otherwise_it _has keywords "." -> static_kw_else
    | "~" "enters" "tapped" "." -> enters_tapped
    | "~" "enters" "tapped" _unless_life NUMBER "or" "less" "life" "." -> enters_tapped_unless_life
    | "~" "enters" "with" count COUNTER ("counter" | "counters") "on" "it" "." -> enters_with
    | _if_kicked "it" "enters" "with" count COUNTER _counters "on" "it" "." -> kicked_enters_with
_counters: "counter" | "counters"
_unless_life: "unless" "a" "player" "has"
_in_addition: "in" "addition" "to" "its" "other" "types"
// A triggered ability granted in quotes ("has \"Whenever you cast ..., ~ deals ...,\"").
// (\x22 is the quote: a quote here would read as a literal word to `_grammar`.)
GRANTED: /\x22[^\x22]+\x22/
_has: "has" | "have"
_during_your_turn: "during" "your" "turn" "."
_otherwise_it: "otherwise" "," ("it" | "they")
// "Target opponent reveals their hand. You choose a nonland card from it. That player
// discards that card." (three sentences, one effect)
reveal_discard: player _reveals _you_choose card_kind "card" "from" "it" "." _discards
_reveals: "reveals" "their" "hand" "."
_you_choose: "you" "choose" ("a" | "an")
_discards: "that" "player" "discards" "that" "card" "."
card_kind: -> ck_any
    | NONWORD -> ck_non
    | NONWORD "permanent" -> ck_non_permanent
    | NONWORD "," NONWORD -> ck_non_two
    | TYPE "or" TYPE -> ck_two
    | TYPE -> ck_type
doesnt_remove: "this" "effect" "doesn't" "remove" "~"
mana: mana_cost ":" "add" mana_out "." (damage_to_you ".")?
mana_cost: "{t}" -> mc_tap
    | "{t}" "," "sacrifice" "~" -> mc_tap_sacrifice
    | "sacrifice" "~" -> mc_sacrifice
enchant: "enchant" tfilter
// A cost reduction (CR 601.2f) while the caster controls permanents of some kinds.
costs_less: "~" "costs" MANA_COST "less" "to" "cast" "if" _you_control control_what _and_what? "."
_and_what: "and" control_what
?control_what: _a tfilter | _a SUBTYPE -> subtype_permanent
_a: "a" | "an"
// What enters, for "whenever another creature you control enters": a kind of permanent, or
// a creature type ("another Ally you control").
enters_what: (adjective ","?)* noun controlled? -> enters_kind
    | SUBTYPE controlled? -> group_subtype

// ------------------------------------------------------------------ costs
cost: cost_part ("," cost_part)*
?cost_part: MANA_COST -> cost_mana
    | "{t}" -> cost_tap
    | "sacrifice" "~" -> cost_sacrifice_self
    | "sacrifice" _a sac_kinds -> cost_sacrifice
    | "sacrifice" "another" sac_kinds -> cost_sacrifice_other
    | "discard" "a" "card" -> cost_discard
    | "pay" NUMBER "life" -> cost_pay_life
    | "return" _a (TYPE | LAND_TYPE) "you" "control" "to" "its" "owner's" "hand" -> cost_return
sac_kinds: TYPE ("or" TYPE)*
restriction: "activate" "only" "during" "your" "turn" "." -> only_your_turn
    | "activate" "only" "as" "a" "sorcery" "." -> only_sorcery
    | "activate" "only" "once" "each" "turn" "." -> only_once

// ------------------------------------------------------------------ mana abilities
mana_out: MANA_SYM -> mana_one
    | MANA_SYM MANA_SYM+ -> mana_many
    | MANA_SYM for_each -> mana_for_each
    | MANA_SYM "or" MANA_SYM -> mana_two
    | MANA_SYM "," MANA_SYM "," "or" MANA_SYM -> mana_three
    | "one" "mana" "of" "any" "color" -> mana_any
damage_to_you: "~" "deals" count "damage" "to" "you"

// ------------------------------------------------------------------ triggers
trigger: "when" "~" "enters" -> t_enters
    | "when" "~" "dies" -> t_dies
    | "when" "~" "is" _put_into_graveyard -> t_to_graveyard
    | "when" "~" "enters" "or" "is" _put_into_graveyard -> t_enters_or_to_graveyard
    | "when" "~" "leaves" "the" "battlefield" -> t_leaves
    | "when" "~" "enters" "or" "leaves" "the" "battlefield" -> t_enters_or_leaves
    | "at" "the" "beginning" "of" "your" "upkeep" -> t_upkeep
    | "at" "the" "beginning" "of" "the" "end" "step" -> t_end_step_each
    | "at" "the" "beginning" "of" "your" "end" "step" -> t_end_step_you
    | "whenever" "~" "attacks" -> t_attacks
    | "whenever" "~" "blocks" -> t_blocks
    | "whenever" "~" "blocks" _a tfilter -> t_blocks_what
    | "whenever" "~" "becomes" "blocked" -> t_blocked
    | "whenever" "~" "blocks" "or" "becomes" "blocked" -> t_blocks_or_blocked
    | "whenever" "you" "cast" "a" "noncreature" "spell" -> t_cast_noncreature
    | "whenever" "you" "cast" "an" "instant" "or" "sorcery" "spell" -> t_cast_instant_sorcery
    | "landfall" "—" "whenever" "a" "land" "you" "control" "enters" -> t_landfall
    | "when" "you" "draw" "your" "third" "card" "in" "a" "turn" -> t_third_draw
    | "whenever" "you" "draw" "your" "second" "card" "each" "turn" -> t_second_draw
    | "when" "you" "cast" "~" -> t_cast_self
    | "whenever" "you" "sacrifice" "another" SUBTYPE -> t_you_sacrifice
    | "whenever" "another" enters_what "enters" -> t_another_enters
    | "whenever" "~" "or" "another" enters_what "enters" -> t_self_or_another_enters
    | "whenever" _a enters_what "enters" -> t_a_enters
    | "whenever" "~" "deals" "damage" "to" "an" "opponent" -> t_damage_to_opponent
    | "whenever" "~" "deals" "combat" "damage" "to" "a" "player" -> t_combat_damage_to_player
    | "whenever" "~" "becomes" "the" "target" "of" _spell_or_ability -> t_targeted
    | "when" "~" "becomes" "the" "target" "of" "a" "spell" "or" "ability" -> t_targeted_any
_spell_or_ability: "a" "spell" "or" "ability" "an" "opponent" "controls"
_put_into_graveyard: "put" "into" "a" "graveyard" "from" "the" "battlefield"
intervening: "if" "~" "didn't" "attack" "this" "turn" "," -> if_not_attacked
    | "if" "it" "was" "kicked" "," -> if_kicked
    | "if" state_cond "," -> if_state
    | "if" "you" "control" "another" "creature" "named" "~" "," -> if_another_named
// Ability words (CR 207.2c) head the condition they name; the condition has the rules.
ability_word: ABILITY_WORD "—"
ABILITY_WORD: "metalcraft" | "threshold" | "hellbent" | "delirium"
_as_long_as: "as" "long" "as"
_among_your_graveyard: "among" "cards" "in" "your" "graveyard"
// What a static ability applies "as long as" (CR 611.3a), its controller's.
static_cond: "you" "control" "three" "or" "more" "artifacts" -> sc_metalcraft
    | "there" "are" "seven" "or" "more" "cards" "in" "your" "graveyard" -> sc_threshold
    | "you" "have" "no" "cards" "in" "hand" -> sc_hellbent
    | "there" "are" "four" "or" "more" "card" "types" _among_your_graveyard -> sc_delirium
    | "you" "control" "an" "artifact" -> sc_control_artifact
    | "~" "is" "equipped" -> sc_equipped
    | "it's" "attacking" -> sc_attacking
state_cond: "you" "control" "three" "or" "more" "artifacts" -> sc_metalcraft
    | "seven" "or" "more" "cards" "are" "in" "your" "graveyard" -> sc_threshold
    | "you" "have" "no" "cards" "in" "hand" -> sc_hellbent

// ------------------------------------------------------------------ sentences
sentences: (sentence | kicked | reveal_discard | may_if_you_do | look_take | reveal_take
    | discard_or_draw | impulse | pay_to_copy | exile_if_dies | countered_exile)+
// "If that spell is countered this way, exile it instead of putting it into its owner's
// graveyard." (614.1a), of the counter the sentence before names.
countered_exile: _countered_this_way "exile" "it" "instead" "of" "putting" "it" _into_graveyard
_countered_this_way: "if" "that" "spell" "is" "countered" "this" "way" ","
_into_graveyard: "into" "its" "owner's" "graveyard" "."
// "If that creature would die this turn, exile it instead." (614.1a), of the creature the
// sentence before named.
exile_if_dies: "if" it_ref "would" "die" "this" "turn" "," "exile" "it" "instead" "."
// Chain Lightning (CR 707.10): the damaged player, or the damaged permanent's controller,
// may pay to copy the spell.
pay_to_copy: "then" _player_or_controller "may" "pay" MANA_COST "." _if_player_does _copy_it
_player_or_controller: "that" "player" "or" "that" "permanent's" "controller"
_if_player_does: "if" "the" "player" "does" ","
_copy_it: "they" "may" "copy" "~" "and" "may" "choose" "a" "new" "target" "for" "that" "copy" "."
// "Exile the top card of your library. Until end of turn, you may play that card."
impulse: "exile" "the" "top" impulse_count "of" "your" "library" "." impulse_until
impulse_count: "card" -> ic_one
    | count "cards" -> ic_many
impulse_until: "until" "end" "of" "turn" "," "you" "may" "play" _that_card "." -> iu_turn
    | "until" "the" "end" "of" "your" "next" "turn" "," "you" "may" "play" _that_card "." -> iu_next
    | "you" "may" "play" "it" "until" "the" "end" "of" "your" "next" "turn" "." -> iu_next
_that_card: "that" "card" | "those" "cards"
// "Each opponent discards a card. For each opponent who can't, you draw a card."
discard_or_draw: "each" "opponent" "discards" "a" "card" "." _for_each_who_cant
_for_each_who_cant: "for" "each" "opponent" "who" "can't" "," "you" "draw" "a" "card" "."
// "Look at the top N cards of your library. Put one of them into your hand and the rest
// into your graveyard." and "... You may reveal a creature card from among them and put
// it into your hand. Put the rest on the bottom of your library in any order."
look_take: _look_at "put" count _of_them _into_hand "and" "the" _rest look_rest "." -> look_put
    | _look_at _may_reveal look_types _card_among _put_it _put_rest look_rest "." -> look_reveal
    | _look_at _reveal_any look_types _put_revealed look_rest "." -> look_reveal_any
_reveal_any: "you" "may" "reveal" "any" "number" "of"
_put_revealed: "cards" _among_them "and" "put" "the" "revealed" "cards" _into_hand "." _put_rest
// "Reveal the top four cards of your library. Put all land cards revealed this way into your
// hand and the rest into your graveyard.", after "Choose creature or land." or not.
reveal_take: _choose_types? _reveal_top count _put_all reveal_kinds _this_way look_rest "."
_put_all: _of_library "." "put" "all"
_reveal_top: "reveal" "the" "top"
_this_way: "revealed" "this" "way" _into_hand "and" "the" "rest"
_choose_types: "choose" look_types "."
reveal_kinds: _look_type ("and" _look_type)? "cards" -> rk_types
    | "cards" "of" "the" "chosen" "type" -> rk_chosen
_look_at: _look_top count _of_library "."
_may_reveal: "you" "may" "reveal" _a
_put_it: "and" "put" "it" _into_hand "."
_put_rest: "then"? "put" "the" "rest"
_card_among: "card" _among_them
_look_top: "look" "at" "the" "top"
_of_library: ("card" | "cards") "of" "your" "library"
_of_them: "of" ("them" | "those" "cards")
_among_them: "from" "among" "them"
_into_hand: "into" "your" "hand"
_rest: "rest" | "other"
look_rest: "into" "your" "graveyard" -> lr_graveyard
    | _on_bottom -> lr_bottom
    | _on_bottom "in" "any" "order" -> lr_bottom
    | _on_bottom "in" "a" "random" "order" -> lr_random
_on_bottom: "on" "the" "bottom" "of" "your" "library"
look_types: _look_type ("or" _look_type)?
    | _look_type "," _look_type "," "or" _look_type
_look_type: TYPE | SPELL_TYPE
// "You may draw a card. If you do, discard a card.": what follows runs only if the first did.
may_if_you_do: "you" "may" effect "." "if" "you" "do" "," clauses "."
    | _may_discard_or_sacrifice "." "if" "you" "do" "," clauses "." -> discard_or_sacrifice
    | "you" "may" "pay" MANA_COST "." "if" "you" "do" "," clauses "." -> may_pay
    | _may_exile _a look_types? _card_from_graveyard _if_you_do clauses "." -> may_exile_card
_may_exile: "you" "may" "exile"
_card_from_graveyard: "card" "from" "your" "graveyard" "."
_if_you_do: "if" "you" "do" ","
_may_discard_or_sacrifice: "you" "may" "discard" "a" "card" "or" "sacrifice" "a" "land"
sentence: clauses "."
// Kicker's linked abilities (CR 702.33d): more effects when kicked, or other ones instead
// of the sentence before ("it deals 4 damage instead": to what that sentence damaged).
kicked: _if_kicked clauses "." -> kicked_more
    | _if_kicked clauses "instead" "." -> kicked_instead
    | _if_kicked "instead" clauses "." -> kicked_instead
    | _if_kicked source "deals" count "damage" "instead" "." -> kicked_damage_instead
    | ability_word? source "deals" count "damage" _instead_if state_cond "." -> state_damage_instead
    | _if_discarded_nonland clauses "." -> discarded_nonland
_if_discarded_nonland: "if" "the" "discarded" "card" "wasn't" "a" "land" "card" ","
_instead_if: "instead" "if"
_if_kicked: "if" "~" "was" "kicked" ","
?clauses: clause (_sep clause)*
_sep: "and" | "," "then" | "then" | "," "and" | ","

?clause: effect
    | "you" "may" effect -> may
    | "you" "may" "have" source "deal" count "damage" "to" dmg_to -> may_damage
    | "then" effect
    | effect "unless" "~" "entered" "this" "turn" -> unless_entered

?effect: damage | destroy | exile | bounce | counter | counter_unless | draw | discard
    | gain_life | lose_life | drain_gain | mill | scry | surveil | pump | grant | untap | tap
    | gain_control | create_token | investigate | attach | add_counter | fight | prevent | explore
    | set_base_pt | sacrifice | sacrifice_unless | restrict | next_upkeep | search
    | return_from_graveyard | reanimate | return_self | animate | regenerate | no_regen
    | exile_graveyard | gain_life_sacrificed | shuffle_in | add_mana | skip_untap
    | take_initiative | put_on_library | return_linked
take_initiative: "you" "take" "the" "initiative"
skip_untap: it_ref "doesn't" "untap" "during" "its" "controller's" "next" "untap" "step"

damage: source "deals" count "damage" "to" dmg_to ("and" count "damage" "to" dmg_to)?
    | source "deals" count "damage" "to" dmg_to for_each -> damage_for_each
    | source "deals" "x" "damage" "to" dmg_to where_x -> damage_where_x
// "for each creature you control", "for each card in your graveyard": an amount counted
// as the effect resolves; "where X is the number of ...": the same, as X.
for_each: "for" "each" each_what
each_what: (TYPE | SUBTYPE) _you_control -> ew_you
    | TYPE _you_control "with" keywords -> ew_you_with
    | (TYPE | SUBTYPE) "on" "the" "battlefield" -> ew_any
    | TYPE? "card" "in" "your" "graveyard" -> ew_graveyard
    | "card" "in" "your" "hand" -> ew_hand
where_x: "," "where" "x" "is" "the" "number" "of" number_what
number_what: (TYPE_PLURAL | SUBTYPE) _you_control -> nw_you
    | (TYPE_PLURAL | SUBTYPE) "on" "the" "battlefield" -> nw_any
    | TYPE? "cards" "in" "your" "graveyard" -> ew_graveyard
    | "cards" "in" "your" "hand" -> ew_hand
?source: "~" | "it"
dmg_to: "any" "target" -> to_any
    | "target" "player" "or" "planeswalker" -> to_target_player
    | target -> to_target
    | "that" "creature" -> to_that
    | "each" "creature" -> to_each_creature
    | "each" "creature" "your" "opponents" "control" -> to_opponent_creatures
    | "each" "creature" "without" "flying" -> to_creatures_without_flying
    | "each" "of" target -> to_each_of
    | "each" "creature" "and" "each" "player" -> to_everything
    | "each" "opponent" "and" "each" "creature" _and_planeswalker_they -> to_opponents_side
    | player -> to_player
_and_planeswalker_they: "and" "planeswalker" "they" "control"

destroy: "destroy" obj
regenerate: "regenerate" obj
no_regen: ("it" | "they") "can't" "be" "regenerated"
exile: "exile" obj
return_linked: "return" "the" "exiled" "card" "to" "the" "battlefield" "under" _owners_control
_owners_control: "its" "owner's" "control"
sacrifice: "sacrifice" obj
sacrifice_unless: "sacrifice" "~" "unless" "you" "pay" MANA_COST
exile_graveyard: "exile" "target" "player's" "graveyard"
gain_life_sacrificed: "you" "gain" "life" "equal" "to" "the" "sacrificed" _mana_value_of
_mana_value_of: "permanent's" "mana" "value"
bounce: "return" obj "to" "its" "owner's" "hand"
put_on_library: "put" obj "on" "top" "of" "its" "owner's" "library"
shuffle_in: "its" "owner" "shuffles" obj "into" "their" "library"
// "Add {B}{B}{B}." from a spell or a trigger (CR 106.4); "{T}: Add ..." is `mana`.
add_mana: "add" MANA_SYM+
return_from_graveyard: "return" target "to" "your" "hand"
reanimate: "return" target "to" "the" "battlefield"
return_self: "return" "this" "card" "from" "your" "graveyard" "to" "the" "battlefield" TAPPED?
TAPPED: "tapped"
counter: "counter" target
counter_unless: "counter" target "unless" "its" "controller" "pays" MANA_COST
untap: "untap" obj
explore: obj "explores"
    | "untap" "up" "to" count "lands" -> untap_up_to
tap: "tap" obj
gain_control: "gain" "control" "of" obj until_eot?
draw: player? ("draw" | "draws") count ("card" | "cards") for_each?
discard: player? ("discard" | "discards") count ("card" | "cards") at_random?
at_random: "at" "random"
gain_life: player? ("gain" | "gains") count "life" for_each?
lose_life: player? ("lose" | "loses") count "life"
drain_gain: "you" "gain" "life" "equal" "to" "the" "life" "lost" "this" "way"
mill: player? ("mill" | "mills") count ("card" | "cards")
scry: "scry" count
surveil: "surveil" count
pump: group_obj _gets PT ("and" ("gains" | "gain") keywords)? until_eot (for_each | where_x)?
_gets: "gets" | "get"
grant: group_obj ("gains" | "gain") keywords until_eot
// "Humans you control gain haste until end of turn": a group narrowed to a creature type.
?group_obj: obj | SUBTYPE "you" "control" -> your_subtype_ref
set_base_pt: obj "has" "base" "power" "and" "toughness" PT until_eot
investigate: "investigate"
attach: "attach" obj "to" obj
create_token: "create" count PT colors? subtypes _token_type _token_s token_keywords? token_has?
    | "create" count PREDEFINED _token_s -> create_predefined
// "a 1/1 colorless Thopter artifact creature token"
_token_type: token_artifact? "creature"
token_artifact: ANIM_TYPE
_token_s: "token" | "tokens"
// A token's quoted ability, after "with" or in a sentence of its own ("It has ...").
token_has: "with" GRANTED | "." ("it" "has" | "they" "have") GRANTED
PREDEFINED: "treasure" | "food" | "clue" | "map" | "blood"
token_keywords: "with" keywords
add_counter: "put" count (COUNTER | STUN) ("counter" | "counters") "on" obj
fight: obj "fights" obj
prevent: "prevent" "all" "combat" "damage" "that" "would" "be" "dealt" "this" "turn"
    | _prevent_next NUMBER _damage_dealt_to dmg_to "this" "turn" -> prevent_next
    | _prevent_next NUMBER _damage_dealt_to "~" "this" "turn" -> prevent_next_self
_prevent_next: "prevent" "the" "next"
_damage_dealt_to: "damage" "that" "would" "be" "dealt" "to"
restrict: obj "can't" "block" "this" "turn" -> restrict_block
    | obj "can't" "attack" "or" "block" "this" "turn" -> restrict_attack_block
    | obj "can't" "be" "blocked" "this" "turn" -> restrict_unblockable
next_upkeep: draw "at" "the" "beginning" "of" "the" "next" "turn's" "upkeep"
search: _search_for "," "reveal" "it" "," "put" "it" "into" _your_hand _shuffle -> search_to_hand
    | _search_for "," _onto_bf_tapped _shuffle -> search_to_bf
    | _search_for "," "reveal" "it" "," _then_on_top -> search_to_top
    | player _may_search search_what "card" "," _onto_bf_tapped _shuffle -> search_may_to_bf
_may_search: "may" "search" "their" "library" "for"
_then_on_top: "then" "shuffle" "and" "put" "that" "card" "on" "top"
// "put it" in older Oracle wording, "put that card" in newer: the same instruction
_onto_bf_tapped: "put" ("it" | "that" "card") "onto" "the" "battlefield" "tapped"
_your_hand: "your" "hand"
_search_for: "search" "your" "library" "for" search_what "card"
search_what: "a" "basic" "land" -> sw_basic
    | ("a" | "an") LAND_TYPE -> sw_land_type
    | "a" "basic" LAND_TYPE ("," LAND_TYPE)* "," "or" LAND_TYPE -> sw_basic_types
LAND_TYPE: "Plains" | "Island" | "Swamp" | "Mountain" | "Forest"
_shuffle: "," "then" "shuffle"
until_eot: "until" "end" "of" "turn"
animate: obj "becomes" "a" PT SUBTYPE* ANIM_TYPE* "creature" all_types? until_eot still_land?
    | until_eot "," obj "becomes" "a" PT SUBTYPE* ANIM_TYPE* "creature" all_types? still_land?
all_types: "with" "all" "creature" "types"
still_land: "." "it's" "still" "a" "land"
ANIM_TYPE: "artifact"

// ------------------------------------------------------------------ statics
?static_sentence: affected ("get" | "gets") PT static_more* -> static_pt
    | affected ("get" | "gets") PT _for_each_counter_on_self static_more* -> static_pt_per_counter
    | affected ("has" | "have") keywords static_more* -> static_kw
    | affected "can't" "block" -> static_cant_block
    | affected "can't" "attack" -> static_cant_attack
    | affected "can't" "attack" "or" "block" -> static_cant_attack_block
    | affected "doesn't" "untap" "during" _whose_untap "untap" "step" -> static_doesnt_untap
    | affected "attacks" "each" "combat" "if" "able" -> static_attacks_each_combat
    | affected "can't" "be" "blocked" -> static_unblockable
    | affected "can't" "be" "blocked" "by" "more" "than" "one" "creature" -> static_max_one_blocker
    | affected "can" "block" "only" "creatures" "with" "flying" -> static_block_only_flying
    | affected "can't" "attack" _unless_island -> static_cant_attack_unless_island
    | "you" "control" "enchanted" "creature" -> static_control
_whose_untap: "its" "controller's" | "your"
_for_each_counter_on_self: "for" "each" COUNTER "counter" "on" "~"
_unless_island: "unless" "defending" "player" "controls" "an" "island"
static_more: "and" ("has" | "have") keywords -> more_kw
    | "," ("has" | "have") GRANTED -> more_granted
    | "and" "is" ("a" | "an") SUBTYPE _in_addition -> more_subtype
    | "and" "can't" "block" -> more_cant_block
affected: "enchanted" "creature" -> aff_enchanted
    | "equipped" "creature" -> aff_equipped
    | "~" -> aff_self
    | "it" -> aff_self
    | other? group -> aff_group
    | "all" group -> aff_all
other: "other"
group: (adjective ","?)* noun_plural controlled?
    | SUBTYPE controlled? -> group_subtype

// ------------------------------------------------------------------ objects and filters
?obj: target | "~" -> self_ref | it_ref | "enchanted" "creature" -> enchanted_ref
    | "equipped" "creature" -> equipped_ref | "all" "creatures" -> all_creatures_ref
    | "creatures" "you" "control" -> your_creatures_ref
    | "creatures" "without" "flying" -> no_flying_ref
    | "creatures" "your" "opponents" "control" -> opponent_creatures_ref
    | "all" "enchantments" -> all_enchantments_ref
    | "attacking" "creatures" -> attacking_creatures_ref
it_ref: "it" | "that" "creature" | "that" "permanent"
target: "target" tfilter
    | "another" "target" tfilter -> target_another
    | "up" "to" "one" "target" tfilter -> target_up_to_one
    | "up" "to" "one" "other" "target" tfilter -> target_up_to_one_other
    | "up" "to" count "target" tfilter_plural -> target_up_to
tfilter: (adjective ","?)* noun ("or" noun)* post*
// "up to two target creatures", "... creature cards from your graveyard"
tfilter_plural: (adjective ","?)* noun_pl ("or" noun_pl)* post*
noun_pl: TYPE_PLURAL -> noun_type_plural
    | TYPE "cards" -> noun_card_of_type
    | "cards" -> noun_card
    | "permanents" -> noun_permanent
TYPE_PLURAL: "creatures" | "artifacts" | "enchantments" | "lands"
?post: controlled | from_graveyard | other_than | that_is | mana_value | power_bound | with_keywords
    | without_keywords
with_keywords: "with" keywords
without_keywords: "without" keywords
power_bound: "with" "power" NUMBER "or" "less" -> power_at_most
    | "with" "power" NUMBER "or" "greater" -> power_at_least
mana_value: "with" "mana" "value" NUMBER "or" "less" -> mv_at_most
    | "with" "mana" "value" "x" "or" "less" "," _where_x_is SUBTYPE _you_control -> mv_at_most_count
    | "with" "mana" "value" NUMBER "or" "greater" -> mv_at_least
_where_x_is: "where" "x" "is" "the" "number" "of"
_you_control: "you" "control"
controlled: "you" "control" -> ctl_you
    | "an" "opponent" "controls" -> ctl_opponent
    | "you" "don't" "control" -> ctl_opponent
    | "defending" "player" "controls" -> ctl_opponent
from_graveyard: "from" "your" "graveyard" -> from_your_graveyard
    | "from" "a" "graveyard" -> from_a_graveyard
other_than: "other" "than" "~"
that_is: "that's" COLOR "or" COLOR
adjective: COLOR -> adj_color
    | "attacking" "or" "blocking" -> adj_in_combat
    | "attacking" -> adj_attacking
    | "blocking" -> adj_blocking
    | "tapped" -> adj_tapped
    | "untapped" -> adj_untapped
    | "non" COLOR -> adj_not_color
    | NONWORD -> adj_not
    | "legendary" -> adj_legendary
    | "basic" -> adj_basic
    | "non" "-" SUBTYPE -> adj_not_subtype
    | SUBTYPE -> adj_subtype
noun: TYPE -> noun_type
    | "permanent" -> noun_permanent
    | "spell" -> noun_spell
    | "player" -> noun_player
    | "planeswalker" -> noun_planeswalker
    | TYPE "card" -> noun_card_of_type
    | SPELL_TYPE "card" -> noun_card_of_type
    | TYPE "spell" -> noun_spell_of_type
    | SPELL_TYPE "spell"? -> noun_spell_of_type
    | "card" -> noun_card
noun_plural: "creatures" -> np_creatures
    | SUBTYPE "creatures" -> np_subtype_creatures
player: "you" -> p_you
    | "target" "player" -> p_target
    | "target" "opponent" -> p_target_opponent
    | "each" "opponent" -> p_each_opponent
    | "that" "player" -> p_that_player
    | "its" "controller" -> p_its_controller
    | "each" "player" -> p_each_player

// ------------------------------------------------------------------ words
keywords: keyword (("," | "and" | "," "and") keyword)*
keyword: KEYWORD | "protection" "from" COLOR ("and" "from" COLOR)*
colors: COLOR ("and" COLOR)*
    | "colorless" -> colorless
subtypes: SUBTYPE+
count: NUMBER | NUMWORD | "x" -> count_x
PT: /[+-]?(\d+|x)\/[+-]?(\d+|x)/i
COUNTER: "+1/+1" | "-1/-1"
STUN: "stun"
MANA_SYM: /\{[wubrgc]\}/i
MANA_COST: /(\{([0-9]+|[wubrgcx]|[wubrg]\/[wubrg])\})+/i
COLOR: "white" | "blue" | "black" | "red" | "green"
NONWORD: /non(artifact|creature|enchantment|land|legendary|basic|white|blue|black|red|green)/i
TYPE: "creature" | "artifact" | "enchantment" | "land"
SPELL_TYPE: "instant" | "sorcery"
// Creature types are the capitalized words the other rules leave (card names are `~`).
SUBTYPE: /(?!(?:NOT_SUBTYPES)(?![a-z'-]))[A-Z][a-z']*(?:-[A-Z][a-z']*)*/
NUMBER: /\d+/
NUMWORD: "a" | "an" | "one" | "two" | "three" | "four" | "five" | "six" | "seven" | "eight"
    | "nine" | "ten"
KEYWORD: KEYWORD_WORDS
%import common.WS
%ignore WS
"""


# "When ~ enters or is put into a graveyard from the battlefield": the compiler's marker
# for a line that is two triggered abilities, "enters" and "to_graveyard".
ENTERS_OR_TO_GRAVEYARD: Final = "enters_or_to_graveyard"
ENTERS_OR_LEAVES: Final = "enters_or_leaves"


def _artifact_token(subtype: str, ability: dict[str, Any], text: str) -> dict[str, Any]:
    """A predefined token (CR 111.10) as a token entry's characteristics: a colorless
    artifact of one subtype with one ability."""
    return {
        "types": ["artifact"],
        "subtypes": [subtype],
        "colors": [],
        "keywords": [],
        "abilities": [{**ability, "text": text}],
    }


# The Clue token (111.10f), for "Investigate".
CLUE: Final = _artifact_token(
    "Clue",
    {"activated": {"cost": "{2}", "sacrifice_self": True, "effects": [{"draw": {"count": 1}}]}},
    "{2}, Sacrifice this artifact: Draw a card.",
)
# The other predefined tokens the compiler creates by name: a Treasure (111.10a), a Food
# (111.10b), a Map (111.10j) and a Blood (111.10g).
TREASURE: Final = _artifact_token(
    "Treasure",
    {"mana": {"add": ["W", "U", "B", "R", "G"], "sacrifice_self": True}},
    "{T}, Sacrifice this artifact: Add one mana of any color.",
)
FOOD: Final = _artifact_token(
    "Food",
    {
        "activated": {
            "cost": "{2}, {T}",
            "sacrifice_self": True,
            "effects": [{"gain_life": {"amount": 3}}],
        }
    },
    "{2}, {T}, Sacrifice this artifact: You gain 3 life.",
)
MAP: Final = _artifact_token(
    "Map",
    {
        "activated": {
            "cost": "{1}, {T}",
            "sacrifice_self": True,
            "targets": [{"kind": "creature", "controller": "you"}],
            "effects": [{"explore": {"what": "target"}}],
            "timing": "sorcery",
        }
    },
    "{1}, {T}, Sacrifice this artifact: Target creature you control explores. "
    "Activate only as a sorcery.",
)
BLOOD: Final = _artifact_token(
    "Blood",
    {
        "activated": {
            "cost": "{1}, {T}",
            "sacrifice_self": True,
            "discard": 1,
            "effects": [{"draw": {"count": 1}}],
        }
    },
    "{1}, {T}, Discard a card, Sacrifice this artifact: Draw a card.",
)
# The tokens Undercity's rooms create (CR 725, 309; mtg_env/data/dungeons/undercity.yaml):
# a card that takes the initiative brings them into the compiled set.
UNDERCITY_TOKENS: Final = (
    TREASURE,
    {
        "types": ["creature"],
        "subtypes": ["Skeleton"],
        "colors": ["B"],
        "power": 4,
        "toughness": 1,
        "keywords": ["menace"],
    },
)
PREDEFINED_TOKENS: dict[str, dict[str, Any]] = {
    "Clue": CLUE,
    "Treasure": TREASURE,
    "Food": FOOD,
    "Map": MAP,
    "Blood": BLOOD,
}


def _group(what: Any) -> tuple[str, dict[str, str]]:
    """A pump's or grant's `group_obj`: the ref, and the creature type narrowing it."""
    if isinstance(what, tuple):
        return what[0], {"subtype": what[1]}
    return what, {}


def singular(word: str, known: frozenset[str] = frozenset()) -> str:
    """A creature type from its plural as Oracle text writes it ("Elves" -> "Elf",
    "Merfolk" -> "Merfolk", "Zombies" -> "Zombie"). Where the plural could come from two
    singulars ("Harpies", "Faeries"), the one among `known` (the lower-case subtypes the
    card pool's type lines use) wins; without it, the "-ie" singular, the commoner."""
    if word.lower() in _SAME_PLURAL:
        return word
    if word.endswith("ves"):
        options = [word[:-3] + "f", word[:-1]]
    elif word.endswith("ies"):
        options = [word[:-1], word[:-3] + "y"]
    elif word.endswith(("ches", "shes", "sses", "xes")):
        options = [word[:-2], word[:-1]]
    elif word.endswith("s"):
        options = [word[:-1]]
    else:
        options = [word]
    return next((o for o in options if o.lower() in known), options[0])


_SAME_PLURAL = frozenset({"merfolk", "sheep", "kithkin", "fish", "moonfolk", "ox"})

# Capitalized words that are not creature types where a creature type may stand.
_NOT_SUBTYPES = (
    "Creatures?|Artifacts?|Enchantments?|Lands?|Permanents?|Spells?|Cards?|Players?|Tokens?|"
    "Planeswalkers?|Other|All|Each|Target|Enchanted|Equipped|Legendary|Basic|You|Your|Non\\w*"
)


def _grammar() -> str:
    words = " | ".join(f'"{w}"' for w in _KEYWORD_WORDS if not w.startswith("protection"))
    g = GRAMMAR.replace("KEYWORD: KEYWORD_WORDS", f"KEYWORD: {words}")
    g = g.replace("NOT_SUBTYPES", _NOT_SUBTYPES)
    # Every literal word matches in any case: a sentence starts with a capital.
    return re.sub(r'"([^"\n]+)"(?!i)', r'"\1"i', g)


@functools.cache
def parser() -> Lark:
    """The parser, built once (a fraction of a second)."""
    return Lark(
        _grammar(),
        parser="earley",
        lexer="dynamic",
        start=["spell", "activated", "triggered", "static", "mana", "enchant", "costs_less"],
        ambiguity="resolve",
    )


class Unsupported(ValueError):
    """A text the vocabulary cannot say: the sentence and why."""


@dataclass
class Scope:
    """What one ability's parse collects beside its effects: its targets in the order the
    text names them, and the last object named (what "it" and "that creature" mean)."""

    targets: list[Any] = field(default_factory=list)
    last: str = "self"
    # The player a sentence last named as a subject: "Target player draws two cards and
    # loses 2 life" (the second clause's subject is the first's).
    subject: str = "you"
    # The trigger's event: "that player" is the damaged player only after one that names
    # a player (damage to an opponent).
    event: str = ""
    # Targets named before the sentence being read: a kicker sentence may name none of
    # its own (they would be chosen whether or not the spell is kicked, CR 601.2c).
    targets_before: int = 0

    def add_target(self, spec: Any) -> str:
        self.targets.append(spec)
        n = len(self.targets) - 1
        if n > 2:
            raise Unsupported("more than three targets")
        ref = "target" if n == 0 else f"target{n}"
        self.last = ref
        return ref


@dataclass(frozen=True)
class Kicked:
    """A sentence that starts "If this spell was kicked": its effects, and whether they
    replace the sentence before ("... instead")."""

    effects: list[Any]
    instead: bool
    # "It deals N damage instead": the amount, to what the sentence before damaged.
    damage: int | str | None = None
    # The op that asks: "kicked", or an ability word's condition ("metalcraft").
    condition: str = "kicked"


def _ability_word(parts: tuple[Any, ...]) -> tuple[str | None, tuple[Any, ...]]:
    """A rule's parts without its leading ability word ("Metalcraft —"), and the word."""
    if parts and isinstance(parts[0], tuple) and parts[0][:1] == ("ability_word",):
        return parts[0][1], parts[1:]
    return None, parts


def _times(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A player op's arguments with a trailing "for each ..." folded into its number."""
    if args and isinstance(args[-1], tuple) and args[-1][:1] == ("each",):
        *rest, n, (_, count) = args
        return (*rest, _counted(n, count))
    return args


def _counted(n: Any, count: dict[str, Any]) -> dict[str, Any]:
    """ "N ... for each <count>": the count, N times."""
    if not isinstance(n, int) or n < 1:
        raise Unsupported("'for each' after a number that is not one")
    # A copy of its own each (power and toughness count alike, as separate values).
    own = {k: list(v) if isinstance(v, list) else v for k, v in count.items()}
    return {**own, "times": n} if n != 1 else own


def _conditional(s: dict[str, Any], cond: str, word: str | None) -> dict[str, Any]:
    """A static ability that applies as long as `cond` holds; Oracle heads the conditions
    that have an ability word with it (and only those)."""
    if set(s) - {"affects", "add_keywords", "modify_pt"}:
        raise Unsupported("'as long as' with rules or control")
    if word != (cond if cond in _CONDITION_WORDS else None):
        raise Unsupported(f"the ability word {word} heading the condition {cond}")
    return {**s, "if": [cond]}


_CONDITION_WORDS: Final = frozenset({"metalcraft", "threshold", "hellbent", "delirium"})


def _ops(x: Any) -> list[Any]:
    """An effect or a list of them, as a list."""
    return x if isinstance(x, list) else [x]


def _num(tok: Any) -> int | str:
    if isinstance(tok, (int, str)) and not isinstance(tok, Token):
        return tok
    s = str(tok).lower()
    if s == "x":
        return "X"
    return NUMBER_WORDS[s] if s in NUMBER_WORDS else int(s)


def _pt(tok: Token) -> tuple[Any, Any]:
    def one(s: str) -> int | str:
        if s.lstrip("+-") == "x":
            return "-X" if s.startswith("-") else "X"
        return int(s)

    p, t = str(tok).lower().split("/")
    return one(p), one(t)


def _mana(tok: Token) -> str:
    return str(tok).upper()


def _kw(words: str) -> str:
    return words.replace(" ", "_")


@v_args(inline=True)
class ToData(Transformer[Any, Any]):
    """A parse tree to card-data fragments: `spell` / `activated` / `triggered` give
    dicts in the shape of `carddb`'s models; every rule below gives the pieces they hold.
    Targets are collected in the order the text names them (`Scope`)."""

    def __init__(self, known: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.scope = Scope()
        self.known = known  # lower-case subtypes of the pool's type lines (plurals)

    # ---------------------------------------------------------------- entry points
    def spell(self, effects: list[Any]) -> dict[str, Any]:
        return _with_targets({"effects": effects}, self.scope)

    def activated(self, cost: dict[str, Any], effects: list[Any], timing: Any = None) -> Any:
        if any("add_mana" in e for e in effects):
            # CR 605.1a: a mana ability, which makes one mana here (engine.mana).
            raise Unsupported("a mana ability that makes more than one mana or has other effects")
        out = {**cost, "effects": effects}
        out = _with_targets(out, self.scope)
        if timing == "once":
            out["once_each_turn"] = True  # CR 602.5b
        elif timing:
            out["timing"] = timing
        return out

    def triggered(self, *parts: Any) -> dict[str, Any]:
        word, (trig, *rest) = _ability_word(parts)
        effects = rest[-1]
        out = {**trig}
        if len(rest) == 2:
            out["if"] = [rest[0]]
        if word is not None and out.get("if") != [word]:
            raise Unsupported(f"the ability word {word} heading another condition")
        out["effects"] = effects
        return _with_targets(out, self.scope)

    def static_as_long_as(self, *parts: Any) -> dict[str, Any]:
        # "Metalcraft — ~ gets +2/+2 as long as you control three or more artifacts."
        word, (s, cond) = _ability_word(parts)
        return _conditional(s, cond, word)

    def static_as_long_as_first(self, *parts: Any) -> dict[str, Any]:
        # "As long as you control an artifact, ~ gets +1/+0 and has haste."
        word, (cond, s) = _ability_word(parts)
        return _conditional(s, cond, word)

    def static_your_turn(self, s: dict[str, Any]) -> dict[str, Any]:
        if set(s) - {"affects", "add_keywords", "modify_pt"}:
            raise Unsupported("'during your turn' with rules or control")
        return {**s, "during": "your_turn"}

    def static_kw_else(self, aff: Any, first: list[str], second: list[str]) -> dict[str, Any]:
        # Two static abilities (the compiler writes both); the text view joins them.
        return {
            "statics": [
                {"affects": aff, "add_keywords": first, "during": "your_turn"},
                {"affects": aff, "add_keywords": second, "during": "not_your_turn"},
            ]
        }

    def static(self, s: dict[str, Any], keep: Any = None) -> dict[str, Any]:
        if keep is not None:
            s["rules"] = [*s.get("rules", []), "doesnt_remove_source"]
        return s

    def enters_with(self, n: Any, kind: Token) -> dict[str, Any]:
        if not isinstance(n, int):  # `count` gave "X": the value announced (107.3m)
            if str(kind) != "+1/+1":
                raise Unsupported("entering with X counters of another kind than +1/+1")
            return {"card": {"enters_with_x": str(kind)}}
        return {"card": {"enters_with": {str(kind): n}}}

    def enters_tapped_unless_life(self, n: Token) -> dict[str, Any]:
        return {"card": {"enters_tapped_unless_life": int(n)}}

    def enters_tapped(self) -> dict[str, Any]:
        # Not an ability of the card's list: a card field (CR 614.1c), `compiler` sets it.
        return {"card": {"enters_tapped": True}}

    def doesnt_remove(self) -> bool:
        return True

    def enchant(self, spec: Any) -> Any:
        kind = spec["kind"] if isinstance(spec, dict) else spec
        if kind not in ("creature", "land", "permanent"):
            # The engine attaches Auras to permanents only (no Curses on players).
            raise Unsupported(f"an Aura that enchants a {kind}")
        if isinstance(spec, dict) and (spec.get("tapped") or spec.get("untapped")):
            # What an Aura may stay attached to is checked by characteristics (303.4d).
            raise Unsupported("an Aura that enchants a tapped or untapped permanent")
        return spec

    def mana(self, cost: dict[str, Any], out: Any, dmg: Any = None) -> dict[str, Any]:
        d: dict[str, Any] = {**cost, "add": out} if isinstance(out, list) else {**cost, **out}
        if dmg:
            d["damage_to_you"] = dmg
        return d

    def mc_tap(self) -> dict[str, Any]:
        return {}

    def mc_tap_sacrifice(self) -> dict[str, Any]:
        return {"sacrifice_self": True}

    def mc_sacrifice(self) -> dict[str, Any]:
        return {"cost": "", "sacrifice_self": True}

    # ---------------------------------------------------------------- costs
    def cost(self, *parts: Any) -> dict[str, Any]:
        mana = [p for p in parts if isinstance(p, str) and p != "{T}"]
        tap = "{T}" in parts
        sac = any(p is True for p in parts)
        given = [p for p in parts if isinstance(p, tuple)]
        life = [p["pay_life"] for p in parts if isinstance(p, dict)]
        if len(mana) > 1:
            raise Unsupported("a cost with two mana parts")
        if len(given) > 1:
            raise Unsupported("a cost that sacrifices or discards two things")
        text = ", ".join([*mana, *(["{T}"] if tap else [])])
        out: dict[str, Any] = {"cost": text}
        if sac:
            out["sacrifice_self"] = True
        if life:
            out["pay_life"] = life[0]
        for kind, types in given:
            if kind == "discard":
                out["discard"] = 1
            elif kind == "return":
                out["return_to_hand"] = types[0]
            else:
                out["sacrifice"] = types
                if kind == "sac_other":
                    out["sacrifice_other"] = True
        return out

    def sac_kinds(self, *ts: Token) -> list[str]:
        return [str(t).lower() for t in ts]

    def cost_sacrifice(self, types: list[str]) -> tuple[str, list[str]]:
        return ("sac", types)

    def cost_sacrifice_other(self, types: list[str]) -> tuple[str, list[str]]:
        return ("sac_other", types)

    def cost_pay_life(self, n: Token) -> dict[str, int]:
        return {"pay_life": int(n)}

    def cost_return(self, kind: Token) -> tuple[str, list[str]]:
        word = str(kind)
        return ("return", [word if word[0].isupper() else word.lower()])

    def cost_discard(self) -> tuple[str, list[str]]:
        return ("discard", [])

    def cost_mana(self, tok: Token) -> str:
        return _mana(tok)

    def cost_tap(self) -> str:
        return "{T}"

    def cost_sacrifice_self(self) -> bool:
        return True

    def only_your_turn(self) -> str:
        return "your_turn"

    def only_sorcery(self) -> str:
        return "sorcery"

    def only_once(self) -> str:
        return "once"

    # ---------------------------------------------------------------- mana
    def mana_one(self, s: Token) -> list[str]:
        return [_mana(s)[1]]

    def mana_many(self, *syms: Token) -> dict[str, Any]:
        # "{T}: Add {C}{C}.": several mana of one kind (a mana ability, CR 605.1a).
        kinds = {str(t)[1:-1].upper() for t in syms}
        if len(kinds) > 1:
            raise Unsupported("a mana ability that makes mana of two kinds at once")
        return {"add": sorted(kinds), "amount": len(syms)}

    def mana_for_each(self, sym: Token, each: Any) -> dict[str, Any]:
        (_, count) = each
        if count.get("zone", "battlefield") != "battlefield":
            raise Unsupported("a mana ability counting cards in a graveyard or hand")
        return {"add": [str(sym)[1:-1].upper()], "amount": count}

    def mana_two(self, a: Token, b: Token) -> list[str]:
        return [_mana(a)[1], _mana(b)[1]]

    def mana_three(self, a: Token, b: Token, c: Token) -> list[str]:
        return [_mana(a)[1], _mana(b)[1], _mana(c)[1]]

    def mana_any(self) -> list[str]:
        return ["W", "U", "B", "R", "G"]

    def damage_to_you(self, n: Any) -> Any:
        return n

    # ---------------------------------------------------------------- triggers
    def t_enters(self) -> dict[str, Any]:
        return {"event": "enters"}

    def t_dies(self) -> dict[str, Any]:
        return {"event": "dies"}

    def t_to_graveyard(self) -> dict[str, Any]:
        # "It" is then the card in the graveyard ("return it to its owner's hand").
        self.scope.last = "this_card"
        return {"event": "to_graveyard"}

    def t_enters_or_to_graveyard(self) -> dict[str, Any]:
        # Two triggered abilities with one effect (the compiler writes both).
        return {"event": ENTERS_OR_TO_GRAVEYARD}

    def t_leaves(self) -> dict[str, Any]:
        return {"event": "leaves"}

    def t_enters_or_leaves(self) -> dict[str, Any]:
        return {"event": ENTERS_OR_LEAVES}

    def t_upkeep(self) -> dict[str, Any]:
        return {"event": "upkeep"}

    def t_end_step_each(self) -> dict[str, Any]:
        return {"event": "end_step", "whose": "each"}

    def t_end_step_you(self) -> dict[str, Any]:
        return {"event": "end_step"}

    def t_attacks(self) -> dict[str, Any]:
        return {"event": "attacks"}

    def t_blocks(self) -> dict[str, Any]:
        return {"event": "blocks"}

    def t_blocks_what(self, spec: Any) -> dict[str, Any]:
        # "Whenever this creature blocks a creature with flying": the blocked creature's
        # filter (its characteristics only: it is not a target).
        f = {"kind": spec} if isinstance(spec, str) else dict(spec)
        if f.pop("kind") != "creature" or set(f) - {"keywords", "colors", "subtypes"}:
            raise Unsupported("a blocked creature named by more than its keywords or colors")
        return {"event": "blocks", "blocked": {"types": ["creature"], **f}}

    def t_blocked(self) -> dict[str, Any]:
        return {"event": "blocked"}

    def t_blocks_or_blocked(self) -> dict[str, Any]:
        return {"event": "blocks_or_blocked"}

    def t_cast_noncreature(self) -> dict[str, Any]:
        return {"event": "cast_noncreature"}

    def t_cast_instant_sorcery(self) -> dict[str, Any]:
        return {"event": "cast_instant_sorcery"}

    def t_landfall(self) -> dict[str, Any]:
        return {"event": "landfall"}

    def t_cast_self(self) -> dict[str, Any]:
        return {"event": "cast_self"}

    def enters_kind(self, *parts: Any) -> dict[str, Any]:
        f = _merge_filters(tuple(p for p in parts if p is not None))
        noun = f.pop("noun", None)
        if noun in ("creature", "artifact", "enchantment", "land", "planeswalker"):
            f["types"] = [noun, *f.get("types", [])]
        elif noun != "permanent":
            raise Unsupported(f"a {noun} entering")
        for key in (*_TARGET_STATUS, "zone"):
            if key in f:
                raise Unsupported(f"a {key} permanent entering")
        return f

    def t_another_enters(self, f: dict[str, Any]) -> dict[str, Any]:
        self.scope.event = ENTERED
        return {"event": "permanent_enters", "enters": {**f, "other": True}}

    def t_self_or_another_enters(self, f: dict[str, Any]) -> dict[str, Any]:
        self.scope.event = ENTERED
        return {"event": "permanent_enters", "enters": {**f, "other": True}, "or_self": True}

    def t_a_enters(self, f: dict[str, Any]) -> dict[str, Any]:
        self.scope.event = ENTERED
        return {"event": "permanent_enters", "enters": f}

    def t_you_sacrifice(self, tok: Token) -> dict[str, Any]:
        return {"event": "you_sacrifice", "subtype": str(tok)}

    def t_second_draw(self) -> dict[str, Any]:
        return {"event": "second_draw"}

    def t_third_draw(self) -> dict[str, Any]:
        self.scope.event = "third_draw"
        return {"event": "third_draw"}

    def return_self(self, tapped: Token | None = None) -> dict[str, Any]:
        # Only from the graveyard trigger that returns its own card (113.6k).
        if self.scope.event != "third_draw":
            raise Unsupported("this card returned from the graveyard by another ability")
        return {"return_self_from_graveyard": {"tapped": tapped is not None}}

    def t_damage_to_opponent(self) -> dict[str, Any]:
        self.scope.event = "damage_to_opponent"
        return {"event": "damage_to_opponent"}

    def explore(self, what: str) -> dict[str, Any]:
        return {"explore": {"what": what}}

    def untap_up_to(self, n: Any) -> dict[str, Any]:
        if not isinstance(n, int):
            raise Unsupported("untapping up to X lands")
        return {"untap_up_to": {"count": n}}

    def t_combat_damage_to_player(self) -> dict[str, Any]:
        self.scope.event = "combat_damage_to_player"
        return {"event": "combat_damage_to_player"}

    def t_targeted(self) -> dict[str, Any]:
        return {"event": "targeted_by_opponent"}

    def t_targeted_any(self) -> dict[str, Any]:
        return {"event": "targeted"}

    def if_not_attacked(self) -> str:
        return "not_attacked_this_turn"

    def if_kicked(self) -> str:
        return "kicked"

    def kicked_enters_with(self, n: Any, kind: Token) -> dict[str, Any]:
        if not isinstance(n, int):
            raise Unsupported("entering with X counters")
        return {"card": {"kicked_enters_with": {str(kind): n}}}

    # ---------------------------------------------------------------- sentences
    def sentences(self, *ss: list[Any] | Kicked) -> list[Any]:
        out: list[list[Any]] = []
        for s in ss:
            if not isinstance(s, Kicked):
                out.append(s)
            elif not s.instead:
                out.append([{s.condition: {"effects": s.effects}}])
            elif not out:
                raise Unsupported("'instead' with no sentence before it")
            else:
                before = out.pop()
                effects = s.effects
                if s.damage is not None:
                    hit = [op["damage"] for op in before if "damage" in op]
                    if len(hit) != 1:
                        raise Unsupported("damage 'instead' of no one damage")
                    effects = [{"damage": {**hit[0], "amount": s.damage}}]
                out.append([{s.condition: {"effects": effects, "otherwise": before}}])
        return [op for s in out for op in s]

    def reveal_discard(self, who: str, kind: dict[str, Any]) -> list[Any]:
        if who not in ("target",) or self.scope.targets[-1] not in ("player", "opponent"):
            raise Unsupported("a hand revealed by a player the text doesn't target")
        return [{"reveal_discard": {"who": who, **kind}}]

    def ck_any(self) -> dict[str, Any]:
        return {}

    def ck_non(self, tok: Token) -> dict[str, Any]:
        return {"not_types": [str(tok)[3:].lower()]}

    def ck_non_permanent(self, tok: Token) -> dict[str, Any]:
        # "nonland permanent card": an artifact, creature or enchantment card (no
        # planeswalker or battle is card data here).
        if str(tok).lower() != "nonland":
            raise Unsupported(f"a {tok} permanent card")
        return {"types": ["artifact", "creature", "enchantment"]}

    def ck_non_two(self, a: Token, b: Token) -> dict[str, Any]:
        return {"not_types": [str(a)[3:].lower(), str(b)[3:].lower()]}

    def ck_type(self, a: Token) -> dict[str, Any]:
        return {"types": [str(a).lower()]}

    def ck_two(self, a: Token, b: Token) -> dict[str, Any]:
        return {"types": [str(a).lower(), str(b).lower()]}

    def sentence(self, *clauses: Any) -> list[Any]:
        self.scope.subject = "you"
        self.scope.targets_before = len(self.scope.targets)
        out: list[Any] = []
        for c in clauses:
            out.extend(c if isinstance(c, list) else [c])
        return out

    def _kicked(self, clauses: tuple[Any, ...], instead: bool) -> Kicked:
        if len(self.scope.targets) > self.scope.targets_before:
            raise Unsupported("a target chosen only when the spell is kicked")
        return Kicked(self.sentence(*clauses), instead)

    def kicked_more(self, *clauses: Any) -> Kicked:
        return self._kicked(clauses, False)

    def kicked_instead(self, *clauses: Any) -> Kicked:
        return self._kicked(clauses, True)

    def discarded_nonland(self, *clauses: Any) -> Kicked:
        # "If the discarded card wasn't a land card, ...": of the card discarded for the
        # spell's additional cost (CR 601.2b), the card field beside it.
        k = self._kicked(clauses, False)
        return Kicked(k.effects, False, condition="discarded_nonland")

    def kicked_damage_instead(self, _source: Any, n: Any) -> Kicked:
        # The damage's recipient is the sentence before's (`sentences` fills it in).
        return Kicked([], True, _num(n))

    def state_damage_instead(self, *parts: Any) -> Kicked:
        # "Metalcraft — ~ deals 4 damage instead if you control three or more artifacts."
        word, (_source, n, cond) = _ability_word(parts)
        if word is not None and word != cond:
            raise Unsupported(f"the ability word {word} heading another condition")
        return Kicked([], True, _num(n), condition=cond)

    def ability_word(self, tok: Token) -> tuple[str, str]:
        return ("ability_word", str(tok).lower())

    def if_state(self, cond: str) -> str:
        return cond

    def if_another_named(self) -> str:
        return "another_named"

    def clauses(self, *cs: Any) -> list[Any]:
        return self.sentence(*cs)

    def may(self, eff: Any) -> dict[str, Any]:
        return {"may": {"effects": eff if isinstance(eff, list) else [eff]}}

    def look_put(self, n: Any, k: Any, rest: tuple[str, bool]) -> list[Any]:
        self.sentence()
        if not (isinstance(n, int) and isinstance(k, int)) or not 1 <= k <= 2 or k >= n:
            raise Unsupported("looking at X cards, or taking as many as are looked at")
        return [{"look_take": {"count": n, "take": k, "rest": rest[0], "random": rest[1]}}]

    def look_reveal(self, n: Any, types: list[str], rest: tuple[str, bool]) -> list[Any]:
        self.sentence()
        if not isinstance(n, int) or n < 2:
            raise Unsupported("looking at X cards")
        op = {"count": n, "reveal": True, "types": types, "rest": rest[0], "random": rest[1]}
        return [{"look_take": op}]

    def look_reveal_any(self, n: Any, types: list[str], rest: tuple[str, bool]) -> list[Any]:
        self.sentence()
        if not isinstance(n, int) or n < 2:
            raise Unsupported("looking at X cards")
        op = {"count": n, "reveal": True, "any_number": True, "types": types}
        return [{"look_take": {**op, "rest": rest[0], "random": rest[1]}}]

    def reveal_take(self, *parts: Any) -> list[Any]:
        self.sentence()
        *chosen, n, kinds, rest = parts
        if not isinstance(n, int) or rest[1]:
            raise Unsupported("revealing X cards, or the rest in a random order")
        if chosen and kinds is not None:
            raise Unsupported("a type chosen, then other types named")
        if chosen:
            op = {"count": n, "types": chosen[0], "choose": True, "rest": rest[0]}
        elif kinds is None:
            raise Unsupported("cards of a chosen type, with no choice")
        else:
            op = {"count": n, "types": kinds, "rest": rest[0]}
        return [{"reveal_take": op}]

    def rk_types(self, *ts: Token) -> list[str]:
        return [str(t).lower() for t in ts]

    def rk_chosen(self) -> None:
        return None

    def look_types(self, *ts: Token) -> list[str]:
        return [str(t).lower() for t in ts]

    def lr_graveyard(self) -> tuple[str, bool]:
        return ("graveyard", False)

    def lr_bottom(self) -> tuple[str, bool]:
        return ("bottom", False)

    def lr_random(self) -> tuple[str, bool]:
        return ("bottom", True)

    def may_if_you_do(self, eff: Any, then: Any) -> list[Any]:
        self.sentence()  # a sentence ends: the next names its own subject
        return [{"may": {"effects": _ops(eff), "if_you_do": _ops(then)}}]

    def discard_or_sacrifice(self, then: Any) -> list[Any]:
        self.sentence()
        return [{"discard_or_sacrifice_land": {"effects": _ops(then)}}]

    def unless_entered(self, eff: Any) -> dict[str, Any]:
        return {"unless_entered_this_turn": {"effects": _ops(eff)}}

    def may_damage(self, _src: Any, n: Any, to: list[str]) -> dict[str, Any]:
        return {"may": {"effects": [{"damage": {"amount": n, "to": t}} for t in to]}}

    def damage_for_each(self, src: Any, n: Any, to: list[str], each: Any) -> Any:
        (_, count) = each
        return self.damage(src, _counted(n, count), to)

    def damage_where_x(self, src: Any, to: list[str], count: dict[str, Any]) -> Any:
        return self.damage(src, {**count, "as_x": True}, to)

    def for_each(self, count: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return ("each", count)

    def where_x(self, count: dict[str, Any]) -> dict[str, Any]:
        return count

    def ew_you(self, tok: Token) -> dict[str, Any]:
        return {**self._counted_kind(tok), "whose": "you"}

    def ew_you_with(self, tok: Token, kws: list[str]) -> dict[str, Any]:
        # "for each creature you control with defender"
        if len(kws) != 1:
            raise Unsupported("a count of permanents with more than one keyword")
        return {**self._counted_kind(tok), "whose": "you", "keyword": kws[0]}

    def ew_any(self, tok: Token) -> dict[str, Any]:
        return {**self._counted_kind(tok), "whose": "any"}

    def nw_you(self, tok: Token) -> dict[str, Any]:
        return {**self._counted_kind(tok, plural=True), "whose": "you"}

    def nw_any(self, tok: Token) -> dict[str, Any]:
        return {**self._counted_kind(tok, plural=True), "whose": "any"}

    def ew_graveyard(self, tok: Token | None = None) -> dict[str, Any]:
        return {"zone": "graveyard", **({"types": [str(tok).lower()]} if tok else {})}

    def ew_hand(self) -> dict[str, Any]:
        return {"zone": "hand"}

    def _counted_kind(self, tok: Token, plural: bool = False) -> dict[str, Any]:
        """A card type ("creature", "creatures") or a creature type ("Elf", "Elves")."""
        word = str(tok)
        kind = word.lower()[:-1] if plural else word.lower()
        if kind in ("creature", "artifact", "land", "enchantment"):
            return {"types": [kind]}
        if not word[:1].isupper():
            raise Unsupported(f"a count of {word}")
        return {"subtype": singular(word, self.known) if plural else word}

    def damage(self, _src: Any, n: Any, to: list[str], n2: Any = None, to2: Any = None) -> Any:
        ops = [{"damage": {"amount": n, "to": t}} for t in to]
        if n2 is not None:
            ops += [{"damage": {"amount": n2, "to": t}} for t in to2]
        return ops

    def to_that(self) -> list[str]:
        return [self.scope.last]

    def to_any(self) -> list[str]:
        return [self.scope.add_target("any")]

    def to_target_player(self) -> list[str]:
        return [self.scope.add_target("player")]

    def to_target(self, ref: str) -> list[str]:
        return [ref]

    def to_each_of(self, ref: str) -> list[str]:
        if ref != "targets":
            raise Unsupported("'each of' one target")
        return [ref]

    def to_each_creature(self) -> list[str]:
        return ["all_creatures"]

    def to_opponent_creatures(self) -> list[str]:
        return ["opponent_creatures"]

    def to_creatures_without_flying(self) -> list[str]:
        return ["creatures_without_flying"]

    def to_everything(self) -> list[str]:
        return ["all_creatures", "you", "each_opponent"]

    def to_opponents_side(self) -> list[str]:
        # "each opponent and each creature and planeswalker they control" (this pool has
        # no planeswalkers: the creatures).
        return ["each_opponent", "opponent_creatures"]

    def to_player(self, p: str) -> list[str]:
        return [p]

    def destroy(self, what: str) -> dict[str, Any]:
        return {"destroy": {"what": what}}

    def regenerate(self, what: str) -> dict[str, Any]:
        return {"regenerate": {"what": what}}

    def no_regen(self) -> dict[str, Any]:
        # "It can't be regenerated": the destroy before it, `compiler._fix_ops` joins them.
        return {"no_regen": True}

    def exile(self, what: str) -> dict[str, Any]:
        return {"exile": {"what": what}}

    def return_linked(self) -> dict[str, Any]:
        return {"return_linked": {}}

    def sacrifice(self, what: str) -> dict[str, Any]:
        return {"sacrifice": {"what": what}}

    def exile_graveyard(self) -> dict[str, Any]:
        return {"exile_graveyard": {"who": self.scope.add_target("player")}}

    def gain_life_sacrificed(self) -> dict[str, Any]:
        # Of the permanent sacrificed for the spell's additional cost (CR 601.2b).
        return {"gain_life_sacrificed": {}}

    def impulse(self, n: int, until: str) -> list[Any]:
        self.sentence()
        return [{"impulse": {"count": n, "until": until}}]

    def ic_one(self) -> int:
        return 1

    def ic_many(self, n: Any) -> int:
        if not isinstance(n, int) or n < 2:
            raise Unsupported("a number of cards exiled to play that is not a number")
        return n

    def iu_turn(self) -> str:
        return "turn"

    def iu_next(self) -> str:
        return "next_turn"

    def discard_or_draw(self) -> list[Any]:
        self.sentence()
        return [{"opponent_discards_or_you_draw": {}}]

    def may_pay(self, cost: Token, then: Any) -> list[Any]:
        self.sentence()
        return [{"may_pay": {"cost": _mana(cost), "effects": _ops(then)}}]

    def may_exile_card(self, *parts: Any) -> list[Any]:
        self.sentence()
        types = parts[0] if len(parts) == 2 else []
        return [{"may_exile_card": {"types": types, "effects": _ops(parts[-1])}}]

    def take_initiative(self) -> dict[str, Any]:
        return {"take_initiative": {}}

    def skip_untap(self, what: str) -> dict[str, Any]:
        return {"skip_untap": {"what": what}}

    def exile_if_dies(self, what: str) -> list[Any]:
        if not what.startswith("target"):
            raise Unsupported("'would die this turn' of anything but a target")
        self.sentence()
        return [{"exile_if_dies": {"what": what}}]

    def pay_to_copy(self, cost: Token) -> list[Any]:
        self.sentence()
        return [{"pay_to_copy": {"cost": _mana(cost)}}]

    def sacrifice_unless(self, cost: Token) -> dict[str, Any]:
        # The source's own upkeep cost (as echo's, 702.30a, but every upkeep).
        return {"sacrifice_unless_pay": {"cost": _mana(cost)}}

    def add_mana(self, *syms: Token) -> dict[str, Any]:
        return {"add_mana": {"mana": "".join(str(t).upper() for t in syms)}}

    def shuffle_in(self, what: str) -> dict[str, Any]:
        if what != "this_card":
            raise Unsupported("a card shuffled into a library other than this one from a graveyard")
        return {"shuffle_into_library": {"what": what}}

    def bounce(self, what: str) -> dict[str, Any]:
        return {"return_to_hand": {"what": what}}

    def return_from_graveyard(self, what: str) -> dict[str, Any]:
        return {"return_to_hand": {"what": what}}

    def reanimate(self, what: str) -> dict[str, Any]:
        spec = self.scope.targets[-1] if what.startswith("target") else None
        kind = spec.get("kind") if isinstance(spec, dict) else spec
        if kind != "graveyard_card":
            raise Unsupported("a permanent returned to the battlefield from another zone")
        return {"return_to_battlefield": {"what": what}}

    def counter(self, what: str) -> dict[str, Any]:
        return {"counter": {"what": what}}

    def counter_unless(self, what: str, cost: Token) -> dict[str, Any]:
        if what != "target":
            raise Unsupported("counter-unless of a second target")
        return {"counter_unless_pay": {"cost": _mana(cost), "what": "target"}}

    def untap(self, what: str) -> dict[str, Any]:
        return {"untap": {"what": what}}

    def tap(self, what: str) -> dict[str, Any]:
        return {"tap": {"what": what}}

    def gain_control(self, what: str, _eot: Any = None) -> dict[str, Any]:
        if _eot is None:
            return {"gain_control": {"what": what, "duration": "forever"}}
        return {"gain_control": {"what": what}}

    def _player_op(self, name: str, key: str, args: tuple[Any, ...], **extra: Any) -> Any:
        who = self.scope.subject
        if len(args) == 2:
            who = self.scope.subject = args[0]
        n = args[-1]
        if who == "each_player":
            return [
                {name: {key: n, "who": "you", **extra}},
                {name: {key: n, "who": "each_opponent", **extra}},
            ]
        return {name: {key: n, "who": who, **extra}}

    def draw(self, *args: Any) -> Any:
        return self._player_op("draw", "count", _times(args))

    def discard(self, *args: Any) -> Any:
        rnd = args and args[-1] == "random"
        if rnd:
            args = args[:-1]
        return self._player_op("discard", "count", args, **({"random": True} if rnd else {}))

    def at_random(self) -> str:
        return "random"

    def gain_life(self, *args: Any) -> Any:
        return self._player_op("gain_life", "amount", _times(args))

    def lose_life(self, *args: Any) -> Any:
        return self._player_op("lose_life", "amount", args)

    def drain_gain(self) -> dict[str, Any]:
        # "You gain life equal to the life lost this way" after "each opponent loses N".
        return {"gain_life_equal": True}

    def mill(self, *args: Any) -> Any:
        return self._player_op("mill", "count", args)

    def scry(self, n: Any) -> dict[str, Any]:
        return {"scry": {"count": n}}

    def surveil(self, n: Any) -> dict[str, Any]:
        return {"surveil": {"count": n}}

    def your_subtype_ref(self, tok: Token) -> tuple[str, str]:
        return ("your_creatures", singular(str(tok), self.known))

    def pump(self, what: Any, pt: Token, *rest: Any) -> list[Any]:
        what, of = _group(what)
        p, t = _pt(pt)
        where = [r for r in rest if isinstance(r, dict)]
        if where:  # "gets +X/+X until end of turn, where X is the number of Elves ..."
            if (p, t) != ("X", "X"):
                raise Unsupported("a P/T change where X is a number that is not +X/+X")
            p, t = {**where[0], "as_x": True}, {**where[0], "as_x": True}
        each = [r[1] for r in rest if isinstance(r, tuple) and r[:1] == ("each",)]
        if each:  # "gets +1/+1 until end of turn for each creature you control"
            if not (isinstance(p, int) and isinstance(t, int) and p >= 0 and t >= 0):
                raise Unsupported("a P/T change for each ... that is not +N/+N")
            p, t = (_counted(p, each[0]) if p else 0), (_counted(t, each[0]) if t else 0)
        ops: list[Any] = [{"pump": {"what": what, **of, "power": p, "toughness": t}}]
        kws = [r for r in rest if isinstance(r, list)]
        if kws:
            ops.append({"grant": {"what": what, **of, "keywords": kws[0]}})
        return ops

    def grant(self, what: Any, kws: list[str], _eot: Any) -> dict[str, Any]:
        what, of = _group(what)
        return {"grant": {"what": what, **of, "keywords": kws}}

    def set_base_pt(self, what: str, pt: Token, _eot: Any) -> dict[str, Any]:
        p, t = _pt(pt)
        return {"set_base_pt": {"what": what, "power": p, "toughness": t}}

    def create_token(self, n: Any, pt: Token, *rest: Any) -> dict[str, Any]:
        p, t = _pt(pt)
        colors: list[str] = []
        subtypes: list[str] = []
        kws: list[str] = []
        for r in rest:
            if isinstance(r, tuple) and r[0] == "colors":
                colors = r[1]
            elif isinstance(r, tuple) and r[0] == "subtypes":
                subtypes = r[1]
            elif isinstance(r, tuple) and r[0] == "kws":
                kws = r[1]
        token: dict[str, Any] = {
            # "a 1/1 colorless Thopter artifact creature token" (111.4: its types as said)
            "types": ["artifact", "creature"] if ("artifact", True) in rest else ["creature"],
            "subtypes": subtypes,
            "colors": colors,
            "power": p,
            "toughness": t,
            "keywords": kws,
        }
        for r in rest:
            if isinstance(r, tuple) and r[0] == "abilities":
                token["abilities"] = r[1]
        return {"create_token": {"token": token, "count": n}}

    def token_has(self, tok: Token) -> tuple[str, list[dict[str, Any]]]:
        # The token's quoted ability: a mana ability ("Sacrifice this token: Add {C}", the
        # Eldrazi Spawn's and Scion's), whose "this token" is the token's own "~".
        text = str(tok)[1:-1].strip().rstrip(".").strip()
        text = re.sub(r"\bthis (token|creature)\b", "~", text, flags=re.IGNORECASE) + " ."
        try:
            tree = parser().parse(text, start="mana")
        except UnexpectedInput:
            raise Unsupported("a token's quoted ability that is not a mana ability") from None
        return ("abilities", [{"mana": ToData(self.known).transform(tree)}])

    def token_artifact(self, _word: Token) -> tuple[str, bool]:
        return ("artifact", True)

    def colorless(self) -> tuple[str, list[str]]:
        return ("colors", [])

    def attach(self, what: str, to: str) -> dict[str, Any]:
        return {"attach": {"what": what, "to": to}}

    def create_predefined(self, n: Any, kind: Token) -> dict[str, Any]:
        # CR 111.10: "a Treasure token" is a token with the characteristics the rules give.
        token = PREDEFINED_TOKENS[str(kind).capitalize()]
        return {"create_token": {"token": dict(token), "count": n}}

    def investigate(self) -> dict[str, Any]:
        # CR 701.16a: investigate is "create a Clue token" (111.10f: a colorless Clue
        # artifact token with "{2}, Sacrifice this token: Draw a card").
        return {"create_token": {"token": dict(CLUE), "count": 1}}

    def token_keywords(self, kws: list[str]) -> tuple[str, list[str]]:
        return ("kws", kws)

    def colors(self, *cs: Token) -> tuple[str, list[str]]:
        return ("colors", [COLOR_OF_WORD[str(c).lower()] for c in cs])

    def subtypes(self, *ws: Token) -> tuple[str, list[str]]:
        return ("subtypes", [str(w) for w in ws])

    def add_counter(self, n: Any, kind: Token, what: str) -> dict[str, Any]:
        return {"add_counter": {"what": what, "counter": str(kind), "count": n}}

    def fight(self, a: str, b: str) -> dict[str, Any]:
        return {"fight": {"what": a, "other": b}}

    def prevent(self) -> dict[str, Any]:
        return {"prevent_combat_damage": {}}

    def prevent_next(self, n: Token, to: list[str]) -> dict[str, Any]:
        if len(to) != 1:
            raise Unsupported("a prevention shield on several objects")
        return {"prevent_damage": {"amount": int(n), "to": to[0]}}

    def prevent_next_self(self, n: Token) -> dict[str, Any]:
        self.scope.last = "self"
        return {"prevent_damage": {"amount": int(n), "to": "self"}}

    def restrict_block(self, what: str) -> dict[str, Any]:
        return {"restrict": {"what": what, "rules": ["cant_block"]}}

    def restrict_attack_block(self, what: str) -> dict[str, Any]:
        return {"restrict": {"what": what, "rules": ["cant_attack", "cant_block"]}}

    def restrict_unblockable(self, what: str) -> dict[str, Any]:
        return {"restrict": {"what": what, "rules": ["unblockable"]}}

    def search_to_hand(self, what: dict[str, Any]) -> dict[str, Any]:
        return {"search_basic_land": {"to": "hand", **what}}

    def search_to_top(self, what: dict[str, Any]) -> dict[str, Any]:
        return {"search_basic_land": {"to": "top", **what}}

    def countered_exile(self) -> list[Any]:
        self.sentence()
        return [{"countered_exile": True}]

    def put_on_library(self, what: str) -> dict[str, Any]:
        return {"put_on_library": {"what": what}}

    def search_to_bf(self, what: dict[str, Any]) -> dict[str, Any]:
        return {"search_basic_land": {"to": "battlefield_tapped", **what}}

    def search_may_to_bf(self, who: str, what: dict[str, Any]) -> dict[str, Any]:
        # "Its controller may search their library ...": that player searches, or not.
        if who != "target_controller":
            raise Unsupported(f"a search of {who}'s library")
        return {"search_basic_land": {"to": "battlefield_tapped", "who": who, "may": True, **what}}

    def sw_basic(self) -> dict[str, Any]:
        return {}

    def sw_basic_types(self, *types: Token) -> dict[str, Any]:
        # "a basic Swamp, Mountain, or Forest card": a basic land of any of the types.
        return {"basic_types": [str(t).capitalize() for t in types]}

    def sw_land_type(self, t: Token) -> dict[str, Any]:
        return {"land_type": str(t).capitalize()}

    def next_upkeep(self, draw: dict[str, Any]) -> dict[str, Any]:
        # A delayed trigger has no targets of its own (CR 603.7): only the spell's or
        # ability's controller draws.
        if draw["draw"].get("who", "you") != "you":
            raise Unsupported("a delayed draw by another player")
        return {"at_next_upkeep": {"effects": [draw]}}

    def until_eot(self) -> bool:
        return True

    def all_types(self) -> str:
        return "all_types"

    def still_land(self) -> str:
        return "still_land"

    def animate(self, *parts: Any) -> list[Any]:
        what = next(p for p in parts if isinstance(p, str) and p not in ("all_types", "still_land"))
        pt = next(p for p in parts if isinstance(p, Token) and p.type == "PT")
        subtypes = [str(p) for p in parts if isinstance(p, Token) and p.type == "SUBTYPE"]
        types = [str(p).lower() for p in parts if isinstance(p, Token) and p.type == "ANIM_TYPE"]
        if "still_land" not in parts:
            raise Unsupported("a permanent that becomes a creature and stops being what it was")
        p, t = _pt(pt)
        op: dict[str, Any] = {
            "what": what,
            "add_types": [*types, "creature"],
            "power": p,
            "toughness": t,
        }
        if "all_types" in parts:
            op["all_creature_types"] = True
        ops: list[Any] = [{"animate": op}]
        if subtypes:
            ops.append(
                {"add_subtypes": {"what": what, "subtypes": subtypes, "duration": "end_of_turn"}}
            )
        return ops

    # ---------------------------------------------------------------- statics
    def static_pt(self, aff: Any, pt: Token, *more: dict[str, Any]) -> dict[str, Any]:
        p, t = _pt(pt)
        if isinstance(p, str) or isinstance(t, str):
            raise Unsupported("a static P/T change of X")
        out: dict[str, Any] = {"affects": aff, "modify_pt": [p, t]}
        return _merge_more(out, more)

    def static_pt_per_counter(
        self, aff: Any, pt: Token, kind: Token, *more: dict[str, Any]
    ) -> dict[str, Any]:
        out = self.static_pt(aff, pt, *more)
        out["per_counter"] = str(kind)
        return out

    def static_kw(self, aff: Any, kws: list[str], *more: dict[str, Any]) -> dict[str, Any]:
        return _merge_more({"affects": aff, "add_keywords": kws}, more)

    def static_cant_attack_unless_island(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["cant_attack_unless_island"]}

    def static_block_only_flying(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["block_only_flying"]}

    def static_cant_block(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["cant_block"]}

    def static_cant_attack(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["cant_attack"]}

    def static_cant_attack_block(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["cant_attack", "cant_block"]}

    def static_doesnt_untap(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["doesnt_untap"]}

    def static_attacks_each_combat(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["attacks_each_combat"]}

    def static_max_one_blocker(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["max_one_blocker"]}

    def static_unblockable(self, aff: Any) -> dict[str, Any]:
        return {"affects": aff, "rules": ["unblockable"]}

    def static_control(self) -> dict[str, Any]:
        return {"affects": "enchanted", "control": "you"}

    def more_kw(self, kws: list[str]) -> dict[str, Any]:
        return {"add_keywords": kws}

    def more_granted(self, tok: Token) -> dict[str, Any]:
        # The quoted text is a triggered ability of the object that has it (its "~").
        text = str(tok)[1:-1].strip().rstrip(",").strip() + " ."
        try:
            tree = parser().parse(text, start="triggered")
        except UnexpectedInput:
            raise Unsupported("a granted ability no template reads") from None
        data = ToData(self.known).transform(tree)
        if data.get("targets"):
            raise Unsupported("a granted ability with targets")
        return {"add_abilities": [{"triggered": data}]}

    def more_subtype(self, tok: Token) -> dict[str, Any]:
        return {"add_subtypes": [str(tok)]}

    def more_cant_block(self) -> dict[str, Any]:
        return {"rules": ["cant_block"]}

    def aff_enchanted(self) -> str:
        return "enchanted"

    def aff_equipped(self) -> str:
        return "equipped"

    def aff_self(self) -> str:
        return "self"

    def aff_all(self, group: dict[str, Any]) -> dict[str, Any]:
        # "All Sliver creatures get +1/+1": every one on the battlefield, whoever controls
        # it; said "all" where no controller and no "other" narrows the group.
        if "controller" in group:
            raise Unsupported("'all' of a group that a controller narrows")
        return group

    def aff_group(self, *parts: Any) -> dict[str, Any]:
        f: dict[str, Any] = {}
        for p in parts:
            if p == "other":
                f["other"] = True
            else:
                f.update(p)
        return f

    def other(self) -> str:
        return "other"

    def group(self, *parts: Any) -> dict[str, Any]:
        f = _merge_filters(parts)
        # Status and combat are read where a target is chosen; a group ("tapped creatures",
        # "attacking or blocking creatures") matches by characteristics only.
        for key in _TARGET_STATUS:
            if key in f:
                raise Unsupported(f"a group of {key.replace('_', ' ')} permanents")
        return f

    def group_subtype(self, tok: Token, ctl: Any = None) -> dict[str, Any]:
        return {"subtypes": [singular(str(tok), self.known)], **(ctl or {})}

    def np_creatures(self) -> dict[str, Any]:
        return {"types": ["creature"]}

    def np_subtype_creatures(self, tok: Token) -> dict[str, Any]:
        return {"types": ["creature"], "subtypes": [str(tok)]}

    # ---------------------------------------------------------------- objects
    def self_ref(self) -> str:
        self.scope.last = "self"
        return "self"

    def it_ref(self) -> str:
        if self.scope.event == ENTERED:
            raise Unsupported("'it' for the permanent whose entering triggered the ability")
        return self.scope.last

    def enchanted_ref(self) -> str:
        return "enchanted"

    def equipped_ref(self) -> str:
        raise Unsupported("an effect on the equipped creature")

    def all_creatures_ref(self) -> str:
        return "all_creatures"

    def no_flying_ref(self) -> str:
        return "creatures_without_flying"

    def your_creatures_ref(self) -> str:
        return "your_creatures"

    def opponent_creatures_ref(self) -> str:
        return "opponent_creatures"

    def all_enchantments_ref(self) -> str:
        return "all_enchantments"

    def attacking_creatures_ref(self) -> str:
        return "attacking_creatures"

    def target(self, spec: Any) -> str:
        return self.scope.add_target(spec)

    def tfilter(self, *parts: Any) -> Any:
        return _target_spec(parts)

    def tfilter_plural(self, *parts: Any) -> Any:
        return _target_spec(parts)

    def noun_type_plural(self, tok: Token) -> dict[str, Any]:
        return {"noun": str(tok).lower()[:-1]}

    def target_up_to_one(self, spec: Any) -> str:
        return self._up_to(1, spec)

    def target_another(self, spec: Any) -> str:
        # "another target creature": one other than the source (115.1, its filter's
        # `other`, as "target creature other than ~").
        return self.scope.add_target(_other_target(spec))

    def target_up_to_one_other(self, spec: Any) -> str:
        return self._up_to(1, _other_target(spec))

    def target_up_to(self, n: Any, spec: Any) -> str:
        if not isinstance(n, int) or n < 2:
            raise Unsupported("'up to' a number of targets that is not two or more")
        return self._up_to(n, spec)

    def _up_to(self, n: int, spec: Any) -> str:
        # "Up to N target ..." (601.2c): the ability's only target, N optional ones; its
        # effects name them all ("targets").
        if self.scope.targets:
            raise Unsupported("'up to N' targets beside another target")
        if spec in ("player", "opponent", "any"):
            raise Unsupported("'up to N' target players")
        full = {"kind": spec} if isinstance(spec, str) else dict(spec)
        self.scope.add_target({**full, "up_to": n})
        self.scope.last = "targets"
        return "targets"

    def subtype_permanent(self, tok: Token) -> dict[str, Any]:
        return {"kind": "permanent", "subtypes": [str(tok)]}  # "a Wizard": one, singular

    def costs_less(self, cost: Token, *controls: Any) -> dict[str, Any]:
        amount = str(cost).strip("{}")
        if not amount.isdigit():
            raise Unsupported("a cost reduction of colored mana")
        for c in controls:
            kind = c if isinstance(c, str) else c.get("kind")
            if kind not in ("creature", "permanent", "land", "enchantment"):
                raise Unsupported("a cost reduction for controlling something not a permanent")
        return {"amount": int(amount), "if_you_control": list(controls)}

    def ctl_you(self) -> dict[str, Any]:
        return {"controller": "you"}

    def ctl_opponent(self) -> dict[str, Any]:
        return {"controller": "opponent"}

    def from_your_graveyard(self) -> dict[str, Any]:
        return {"zone": "graveyard", "owner": "you"}

    def from_a_graveyard(self) -> dict[str, Any]:
        return {"zone": "graveyard"}

    def with_keywords(self, kws: list[str]) -> dict[str, Any]:
        return {"keywords": kws}

    def without_keywords(self, kws: list[str]) -> dict[str, Any]:
        return {"not_keywords": kws}

    def adj_in_combat(self) -> dict[str, Any]:
        return {"in_combat": True}

    def adj_attacking(self) -> dict[str, Any]:
        return {"attacking": True}

    def adj_blocking(self) -> dict[str, Any]:
        return {"blocking": True}

    def adj_tapped(self) -> dict[str, Any]:
        return {"tapped": True}

    def adj_untapped(self) -> dict[str, Any]:
        return {"untapped": True}

    def power_at_most(self, n: Token) -> dict[str, Any]:
        return {"max_power": int(n)}

    def power_at_least(self, n: Token) -> dict[str, Any]:
        return {"min_power": int(n)}

    def mv_at_most(self, n: Token) -> dict[str, Any]:
        return {"max_mana_value": int(n)}

    def mv_at_most_count(self, tok: Token) -> dict[str, Any]:
        return {"max_mana_value_count": singular(str(tok), self.known)}

    def mv_at_least(self, n: Token) -> dict[str, Any]:
        return {"min_mana_value": int(n)}

    def other_than(self) -> dict[str, Any]:
        return {"other": True}

    def that_is(self, a: Token, b: Token) -> dict[str, Any]:
        return {"colors": [COLOR_OF_WORD[str(a).lower()], COLOR_OF_WORD[str(b).lower()]]}

    def adj_color(self, c: Token) -> dict[str, Any]:
        return {"colors": [COLOR_OF_WORD[str(c).lower()]]}

    def adj_not_color(self, c: Token) -> dict[str, Any]:
        return {"not_colors": [COLOR_OF_WORD[str(c).lower()]]}

    def adj_not(self, tok: Token) -> dict[str, Any]:
        w = str(tok)[3:].lower()
        if w in COLOR_OF_WORD:
            return {"not_colors": [COLOR_OF_WORD[w]]}
        if w in ("legendary", "basic"):
            return {"not_supertypes": [w]}
        return {"not_types": [w]}

    def adj_legendary(self) -> dict[str, Any]:
        return {"supertypes": ["legendary"]}

    def adj_basic(self) -> dict[str, Any]:
        return {"supertypes": ["basic"]}

    def adj_not_subtype(self, tok: Token) -> dict[str, Any]:
        return {"not_subtypes": [str(tok)]}

    def adj_subtype(self, tok: Token) -> dict[str, Any]:
        return {"subtypes": [str(tok)]}

    def noun_type(self, tok: Token) -> dict[str, Any]:
        return {"noun": str(tok).lower()}

    def noun_permanent(self) -> dict[str, Any]:
        return {"noun": "permanent"}

    def noun_spell(self) -> dict[str, Any]:
        return {"noun": "spell"}

    def noun_player(self) -> dict[str, Any]:
        return {"noun": "player"}

    def noun_planeswalker(self) -> dict[str, Any]:
        return {"noun": "planeswalker"}

    def noun_card_of_type(self, tok: Token) -> dict[str, Any]:
        return {"noun": "card", "types": [str(tok).lower()]}

    def noun_spell_of_type(self, tok: Token) -> dict[str, Any]:
        return {"noun": "spell", "types": [str(tok).lower()]}

    def noun_card(self) -> dict[str, Any]:
        return {"noun": "card"}

    # ---------------------------------------------------------------- players
    def p_you(self) -> str:
        return "you"

    def p_target(self) -> str:
        return self.scope.add_target("player")

    def p_target_opponent(self) -> str:
        return self.scope.add_target("opponent")

    def p_each_opponent(self) -> str:
        return "each_opponent"

    def p_that_player(self) -> str:
        if self.scope.event in ("damage_to_opponent", "combat_damage_to_player"):
            return "that_player"
        t = self.scope.targets
        if t and t[-1] in ("player", "opponent"):  # "target player ... That player discards"
            return "target" if len(t) == 1 else f"target{len(t) - 1}"
        # The owner of a returned permanent, the controller of a countered spell: no
        # reference in the vocabulary names them.
        raise Unsupported("'that player' for a player the text names through an object")

    def p_its_controller(self) -> str:
        # "Destroy target creature. Its controller loses 2 life": the controller of the
        # spell's first target, a permanent, as it last was (608.2h).
        t = self.scope.targets
        if self.scope.last != "target" or not t or t[0] in ("player", "opponent", "spell"):
            raise Unsupported("'its controller' of anything but the first target permanent")
        if isinstance(t[0], dict) and t[0].get("kind") in ("spell", "graveyard_card"):
            raise Unsupported("'its controller' of a spell or a card")
        return "target_controller"

    def p_each_player(self) -> str:
        return "each_player"

    # ---------------------------------------------------------------- words
    def keywords(self, *ks: Any) -> list[str]:
        out: list[str] = []
        for k in ks:
            out.extend(k)
        return out

    def keyword(self, *toks: Token) -> list[str]:
        words = [str(t).lower() for t in toks]
        if len(words) == 1 and words[0] not in COLOR_OF_WORD:
            return [_kw(words[0])]
        return [f"protection_from_{w}" for w in words]

    def count(self, tok: Token) -> Any:
        return _num(tok)

    def count_x(self) -> str:
        return "X"


def _merge_more(out: dict[str, Any], more: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    for m in more:
        for k, v in m.items():
            out[k] = [*out.get(k, []), *v]
    return out


def _merge_filters(parts: tuple[Any, ...]) -> dict[str, Any]:
    f: dict[str, Any] = {}
    for p in parts:
        for k, v in p.items():
            if isinstance(v, list):
                f[k] = [*f.get(k, []), *v]
            else:
                f[k] = v
    return f


_CARD_TYPE_NOUNS: Final = {
    "card",
    "spell",
    "artifact",
    "creature",
    "enchantment",
    "land",
    "instant",
    "sorcery",
}


def _other_target(spec: Any) -> Any:
    """A target spec narrowed to objects other than the source ("another target ...")."""
    if spec == "player" or (isinstance(spec, dict) and spec.get("kind") == "player"):
        raise Unsupported("'another' target player")
    out = {"kind": spec} if isinstance(spec, str) else dict(spec)
    out["other"] = True
    return out


def _target_spec(parts: tuple[Any, ...]) -> Any:
    """A target phrase's filter parts to a `carddb` target: a bare kind where the phrase
    is one ("target creature"), otherwise a mapping with its kind."""
    nouns = [p for p in parts if "noun" in p]
    rest = [{k: v for k, v in p.items() if k != "noun"} for p in parts]
    f = _merge_filters(tuple(rest))
    kinds = [n["noun"] for n in nouns]
    zone = f.pop("zone", None)
    if zone == "graveyard" and "card" in kinds and all(k in _CARD_TYPE_NOUNS for k in kinds):
        # "creature or land card from a graveyard", "instant or sorcery card from your
        # graveyard": a card of any of the types (an instant or sorcery word reads as a
        # spell noun whose type is already among the filter's types).
        f["types"] = [*(k for k in kinds if k not in ("card", "spell")), *f.get("types", [])]
        kinds = ["card"]
    if kinds == ["card"] or zone == "graveyard":
        if zone != "graveyard" or kinds != ["card"]:
            raise Unsupported("a card target outside a graveyard")
        kind = "graveyard_card"
    elif kinds == ["player", "planeswalker"] or kinds == ["player"]:
        if f:
            raise Unsupported("a filtered player target")
        return "player"
    elif kinds == ["creature"]:
        kind = "creature"
    elif kinds == ["land"]:
        kind = "land"
    elif kinds and set(kinds) == {"spell"}:
        kind = "spell"  # "instant or sorcery spell": a spell of either type
    elif kinds == ["enchantment"] and not f:
        return "enchantment"
    elif kinds == ["permanent"]:
        kind = "permanent"
    elif all(k in ("artifact", "enchantment", "creature", "land") for k in kinds):
        kind = "permanent"
        f["types"] = [*kinds, *f.get("types", [])]
    elif kinds == ["creature", "planeswalker"]:
        kind = "creature"  # this pool has no planeswalkers
    else:
        raise Unsupported(f"a target that is {' or '.join(kinds)}")
    if not f:
        return kind
    return {"kind": kind, **f}


def _with_targets(out: dict[str, Any], scope: Scope) -> dict[str, Any]:
    if scope.targets:
        out = {**out, "targets": list(scope.targets)}
    return out


# A condition's rule (`state_cond`, `static_cond`: `-> sc_<name>`) reads as its name.
for _cond in STATIC_CONDITIONS:
    setattr(ToData, f"sc_{_cond}", lambda self, *_children, _c=_cond: _c)
