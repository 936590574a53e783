"""The word list of table codes: 256 short, distinct, easy-to-say words.

Two words carry 16 bits, as in Magic Wormhole's codes. The list is in code, not
a data file, so importing it reads nothing from disk. Changing it changes which
codes exist: keep it stable (a test pins its length and a digest).
"""

WORDS: tuple[str, ...] = (
    "acorn", "actor", "adobe", "agent", "alarm", "album", "alley", "amber", "angle", "ankle",
    "apple", "apron", "arrow", "aspen", "atlas", "attic", "award", "bacon", "badge", "bagel",
    "baker", "bamboo", "banjo", "barn", "basil", "basin", "beach", "beard", "beetle", "bell",
    "bench", "berry", "bison", "blade", "blank", "bloom", "board", "boat", "bonus", "boots",
    "bread", "brick", "bride", "brook", "brush", "bucket", "buddy", "bugle", "cabin", "cable",
    "cactus", "camel", "candy", "canoe", "canyon", "cargo", "carrot", "castle", "cedar", "chalk",
    "charm", "cheese", "cherry", "chess", "chief", "chili", "cider", "cinema", "circus", "citrus",
    "clay", "cliff", "clock", "cloud", "clover", "coast", "cobra", "cocoa", "comet", "coral",
    "cotton", "couch", "cowboy", "crab", "crane", "crayon", "cricket", "crown", "cube", "cupid",
    "curtain", "daisy", "dance", "delta", "denim", "desert", "diary", "dingo", "disco", "dock",
    "dolphin", "donkey", "dragon", "drum", "duck", "eagle", "easel", "echo", "elbow", "elk",
    "ember", "engine", "fable", "falcon", "fancy", "feast", "fern", "ferry", "fiddle", "field",
    "fig", "flame", "flute", "fossil", "fox", "frost", "fudge", "galaxy", "garden", "garlic",
    "gecko", "genie", "ginger", "glacier", "globe", "goat", "gold", "goose", "grape", "gravy",
    "guitar", "gumbo", "hammer", "harbor", "harp", "hazel", "hedge", "helmet", "heron", "hippo",
    "honey", "hood", "horse", "hotel", "igloo", "iguana", "ink", "iris", "island", "ivory",
    "jacket", "jaguar", "jam", "jazz", "jelly", "jewel", "jigsaw", "judge", "juice", "jungle",
    "kayak", "kettle", "kiwi", "koala", "ladder", "lagoon", "lake", "lamp", "lantern", "lemon",
    "lily", "lime", "lizard", "llama", "locket", "lotus", "lunar", "mango", "maple", "marble",
    "meadow", "melon", "mint", "mirror", "mitten", "mocha", "monkey", "moose", "mosaic", "motor",
    "muffin", "mural", "nectar", "needle", "noodle", "nutmeg", "oasis", "ocean", "olive", "onion",
    "opal", "orbit", "orchid", "otter", "owl", "oyster", "paddle", "panda", "parrot", "pasta",
    "peach", "pebble", "pepper", "piano", "pickle", "pilot", "pine", "pirate", "pizza", "planet",
    "plum", "pocket", "polka", "pony", "poppy", "potato", "puffin", "puppet", "purple", "quail",
    "quartz", "quilt", "rabbit", "radar", "radish", "raven", "ribbon", "river", "robin", "rocket",
    "saddle", "salmon", "sausage", "scarf", "shadow", "sherpa",
)
