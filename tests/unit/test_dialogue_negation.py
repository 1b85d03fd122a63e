"""Negation, cessation and hedging cues around a mention, on real spaCy docs and spans."""

from __future__ import annotations

import spacy

from kgverify.dialogue.negation import Cues, cues

NLP = spacy.blank("en")


def cue(text: str, mention: str) -> Cues:
    doc = NLP.make_doc(text)
    start = text.index(mention)
    span = doc.char_span(start, start + len(mention))
    assert span is not None
    return cues(doc, span)


def test_denials() -> None:
    assert cue("No chest pain.", "chest pain").negated
    assert cue("I don't take aspirin.", "aspirin").negated
    assert cue("I have never had asthma", "asthma").negated
    assert cue("She denies fever", "fever").negated
    assert not cue("I have asthma", "asthma").negated


def test_cessation_is_not_a_plain_denial() -> None:
    c = cue("I don't take aspirin anymore", "aspirin")
    assert c.negated and c.ceased
    assert cue("I used to have sinusitis", "sinusitis").ceased
    assert cue("I stopped taking warfarin last month", "warfarin").ceased
    assert cue("I no longer take ibuprofen", "ibuprofen").ceased


def test_a_denial_ends_with_its_clause() -> None:
    text = "No fever but a bad cough"
    assert cue(text, "fever").negated and not cue(text, "cough").negated
    text = "I don't take aspirin, and I have asthma"
    assert cue(text, "aspirin").negated and not cue(text, "asthma").negated
    assert cue("No fever or chills", "chills").negated  # a list stays in the denial


def test_hedges() -> None:
    assert cue("Maybe it is strep throat", "strep throat").hedged
    assert cue("I think I have strep throat", "strep throat").hedged
    assert cue("It might be asthma", "asthma").hedged
    c = cue("I'm not sure it is asthma", "asthma")
    assert c.hedged and not c.negated  # "not sure" hedges, it does not deny
    assert not cue("I have asthma. Maybe later.", "asthma").hedged


def test_double_negation_affirms_and_agreeing_denials_deny() -> None:
    assert not cue("It's not that I don't take my Plavix.", "Plavix").negated
    assert not cue("I can't say I don't take aspirin", "aspirin").negated
    assert not cue("I don't not take aspirin", "aspirin").negated
    assert cue("I don't think I have asthma", "asthma").negated  # a denied clause
    assert cue("I don't have no chest pain", "chest pain").negated  # "no" agrees
    # A clause denial over a denied verb about something else says nothing of the thing.
    assert not cue("It's not that I don't like antibiotics.", "antibiotics").negated
    assert cue("It's not that I take antibiotics.", "antibiotics").negated


def test_a_denied_verb_about_another_thing_denies_nothing() -> None:
    text = "I take Coumadin, but it doesn't mix with my verapamil."
    assert not cue(text, "verapamil").negated
    assert not cue("I don't like aspirin", "aspirin").negated
    assert not cue("I don't take aspirin for my headaches", "headaches").negated
    assert cue("I don't take aspirin for my headaches", "aspirin").negated
    assert cue("I'm not allergic to penicillin", "penicillin").negated
    assert cue("I was never diagnosed with diabetes", "diabetes").negated


def test_past_denials_reach_the_whole_record() -> None:
    assert cue("I've never had a stroke", "stroke").ever
    assert cue("I didn't take warfarin", "warfarin").ever
    assert cue("I haven't had a cough", "cough").ever
    c = cue("I don't take warfarin", "warfarin")
    assert c.negated and not c.ever  # present: only what is active at the encounter


def test_a_relatives_illness_is_theirs() -> None:
    father = cue("My father had coronary artery disease.", "coronary artery disease")
    assert father.family and not father.negated
    family = cue("There's no epilepsy in the family.", "epilepsy")
    assert family.family and family.negated
    assert cue("My mother had a stroke and diabetes", "diabetes").family
    assert not cue("My mother says I have asthma.", "asthma").family
    assert not cue("My father had a stroke, and I have asthma", "asthma").family
    assert not cue("My family doctor gave me lisinopril", "lisinopril").family
    assert not cue("I have epilepsy.", "epilepsy").family


def test_suppositions_and_the_past() -> None:
    assert cue("What if it's strep throat?", "strep throat").hypothetical
    assert cue("I take aspirin if I get headaches", "headaches").hypothetical
    assert not cue("I take aspirin if I get headaches", "aspirin").hypothetical
    assert not cue("If it rains I stay in, but I have asthma", "asthma").hypothetical
    assert cue("I had a stroke years ago", "stroke").historical
    assert cue("I had asthma as a child", "asthma").historical
    assert not cue("I have asthma", "asthma").historical


def test_an_ending_after_the_mention() -> None:
    assert cue("I had a rash, but it's all cleared up now.", "rash").ceased
    assert cue("My sore throat went away.", "sore throat").ceased
    assert cue("The cough is gone", "cough").ceased
    assert not cue("The cough never went away.", "cough").ceased
    assert not cue("I take aspirin, stopped ibuprofen", "aspirin").ceased
    assert not cue("I have a headache but it's better now", "headache").ceased
    assert not cue("My digoxin has gone up", "digoxin").ceased


def test_more_context_of_patient_speech() -> None:
    """Issue 37, point 3, second look: a denial with "ever" is past, a temporal preposition
    after the denied verb's object takes the denial off, cessation said of "it", endings
    and relatives of other words."""
    ever = cue("I don't think I've ever had a UTI.", "UTI")
    assert ever.negated and ever.ever
    assert not cue("I don't think I have a UTI.", "UTI").ever  # present: what holds now
    off = cue("The doctor said I didn't need it after the stroke.", "stroke")
    assert not off.negated
    assert cue("I didn't have a stroke after the surgery.", "stroke").negated
    assert cue("They said I'll need clopidogrel but I've already stopped it.", "clopidogrel").ceased
    assert cue("And the nitroglycerin spray, but I stopped that one.", "nitroglycerin spray").ceased
    assert not cue("I take clopidogrel but I never stopped it.", "clopidogrel").ceased
    assert not cue("I take clopidogrel and I stopped aspirin.", "clopidogrel").ceased
    text = "They stopped the Celebrex on account of the bleeding."
    assert not cue(text, "bleeding").ceased  # the reason, not what stopped
    assert cue("They stopped the bleeding.", "bleeding").ceased
    assert cue("I'm done with the appendicitis, that's all fixed.", "appendicitis").ceased
    assert cue("My great-granddaughter had scarlet fever.", "scarlet fever").family


def test_a_cessation_is_carried_off_like_a_denial() -> None:
    """ "stopped", "used to", "anymore" before a mention reach it only as a denial would: a
    preposition or "because" after an unrelated word takes them to another thing."""
    text = "I don't take naproxen anymore because of the bleeding."
    assert cue(text, "naproxen").ceased and not cue(text, "bleeding").ceased
    text = "I used to take carbamazepine for my epilepsy."
    assert cue(text, "carbamazepine").ceased and not cue(text, "epilepsy").ceased
    assert cue("I stopped the metformin after my kidney trouble", "metformin").ceased
    assert not cue("I stopped the metformin after my kidney trouble", "kidney trouble").ceased
    assert cue("I used to have migraines.", "migraines").ceased  # about the mention itself
    assert cue("I no longer get gout attacks", "gout attacks").ceased


def test_a_drugs_form_between_it_and_its_ending() -> None:
    text = "And the salbutamol inhaler, but I stopped that one last week."
    assert cue(text, "salbutamol").ceased
    assert not cue("And the salbutamol inhaler, but I use it daily.", "salbutamol").ceased
    assert not cue("The salbutamol, the doctor, the nurse and I stopped it.", "salbutamol").ceased


def test_a_norm_is_no_denial_and_since_is_the_past() -> None:
    """Issue 37, fourth pass: "shouldn't" and "rather not" state a norm or a preference,
    not a fact; a past denial with "since" after the mention says it was so before; a
    relative named in the sentence before is "she" or "he" in this one."""
    norm = cue("I know I shouldn't be on anti-inflammatories.", "anti-inflammatories")
    assert not norm.negated and norm.hypothetical
    rather = cue("I'd rather not take Aleve with my ulcer.", "Aleve")
    assert not rather.negated and rather.hypothetical
    assert cue("I don't take Aleve with my ulcer.", "Aleve").negated  # a plain denial
    assert cue("I could not take aspirin.", "aspirin").negated  # not a norm
    since = cue("I haven't had an ear infection since I was little.", "ear infection")
    assert not since.negated and since.historical
    assert cue("I haven't had an ear infection.", "ear infection").negated
    assert cue("I don't take aspirin since the bleed.", "aspirin").negated  # present denial
    mother = cue("Like my mother? She had dementia for ten years.", "dementia")
    assert mother.family
    assert not cue("My wife drove me. She says I have asthma.", "asthma").family
    assert not cue("It hurts. She had dementia.", "dementia").family  # nobody named


def test_a_denied_ending_denies_nothing_after_it() -> None:
    """Issue 37, fifth pass: "never went away", "hasn't cleared up", "never stopped" deny an
    ending, so the condition goes on and what follows is not denied; a plain "never" still
    denies."""
    text = "I've got chronic sinusitis that never went away, and arthritis in the hands."
    assert not cue(text, "arthritis").negated
    assert not cue(text, "chronic sinusitis").negated
    assert not cue("My cough hasn't cleared up and I have asthma", "asthma").negated
    stopped = cue("I never stopped the warfarin.", "warfarin")
    assert not stopped.negated and not stopped.ceased
    assert not cue("I didn't stop the warfarin.", "warfarin").negated
    assert cue("I stopped the warfarin.", "warfarin").ceased
    assert cue("I never had asthma.", "asthma").negated
    assert cue("I never got pneumonia.", "pneumonia").negated  # "got" without "better"
    assert cue("I don't get headaches.", "headaches").negated


def test_the_object_of_a_preposition_is_not_what_stopped() -> None:
    """Issue 37, fifth pass: "anymore" or "stopped it" after a mention that is the object of
    "for", "since" or "after" belongs to the drug or verb before it; an ending of the
    condition itself ("it cleared up") still ends it."""
    text = "The heart doctor said I don't need the digoxin for my AFib anymore."
    assert not cue(text, "AFib").ceased and cue(text, "digoxin").ceased
    text = "Since my stroke I'm not on the Plavix any more, the doctor stopped it."
    assert not cue(text, "stroke").ceased and cue(text, "Plavix").ceased
    assert not cue("I was on prednisone for my arthritis but stopped it.", "arthritis").ceased
    assert cue("I was treated for pneumonia but it cleared up.", "pneumonia").ceased
    assert cue("I had a rash, but it went away.", "rash").ceased


def test_a_reason_clause_lends_no_time_or_hedge_to_the_mention_before_it() -> None:
    """Issue 37, fifth pass: "because" opens a clause of its own after the mention."""
    text = "I can't take Advil because of my stomach ulcer and the bleeding I had years back."
    assert not cue(text, "Advil").historical
    assert cue(text, "bleeding").historical
    assert cue("I took Advil years back.", "Advil").historical
    assert not cue("I take aspirin because I might have angina.", "aspirin").hedged


def test_still_brings_a_past_clause_to_the_present() -> None:
    """Issue 37, fifth pass: "still" before the mention says it holds now, whatever past
    time its clause names."""
    text = "The whiplash I got two years ago still gives me a stiff neck."
    assert not cue(text, "stiff neck").historical
    assert cue(text, "whiplash").historical
    assert cue("I had a stiff neck two years ago.", "stiff neck").historical


def test_nobody_told_me_and_never_since_deny() -> None:
    c = cue("Nobody ever told me I had a-fib.", "a-fib")
    assert c.negated
    c = cue("I never had a colonoscopy since.", "colonoscopy")
    assert c.negated and not c.historical and not c.ever  # since then, not ever
    c = cue("I haven't had an ear infection since, but I had a cold.", "ear infection")
    assert c.negated and not c.historical
    c = cue("I haven't had an ear infection since I was a girl.", "ear infection")
    assert not c.negated and c.historical  # it was so, before


def test_a_question_about_what_is_to_come_asks_advice() -> None:
    """Issue 37, seventh pass: "Will I need ...?", "Should I ...?", "Do I need ...?" open a
    question about what is to come: a supposition, nothing claimed. Not when the question
    says the patient has or had it ("my", "again", "stop", "another"), nor a statement."""
    for text, mention in [
        ("Will I need a pacemaker after this?", "pacemaker"),
        ("And should I take calcium?", "calcium"),
        ("Do I need an inhaler?", "inhaler"),
        ("Do I have to take Ritalin?", "Ritalin"),
        ("Will I need stitches, with my warfarin?", "stitches"),
        ("Will I need an x-ray of my knees every year?", "x-ray of my knees"),
        ("Can I take Aleve with my ulcer?", "Aleve"),  # asks; takes nothing
        ("Will I need stitches? And a tetanus shot?", "tetanus shot"),
        ("Do I need an x-ray? Or a cast?", "cast"),
    ]:
        assert cue(text, mention).hypothetical, text
    for text, mention in [
        ("Should I stop my Fosamax?", "Fosamax"),
        ("Will I need the cast again?", "cast"),
        ("Will I need stitches, with my warfarin?", "warfarin"),
        ("I will need a cast.", "cast"),
        ("Could I have some Percocet instead?", "Percocet"),  # "have": a request or a claim
        ("Is it broken? Or a cast?", "cast"),
        ("Is it pneumonia?", "pneumonia"),
    ]:
        assert not cue(text, mention).hypothetical, text


def test_denials_typed_without_an_apostrophe() -> None:
    c = cue("i dont think i ever blacked out though", "blacked out")
    assert c.negated and c.ever
    assert cue("I didnt take aspirin", "aspirin").negated
    assert not cue("I do take aspirin", "aspirin").negated


def test_an_ending_after_a_time_and_a_relative_reporting_on_the_patient() -> None:
    c = cue("I had an ulcer in the fifties but it healed up long ago.", "ulcer")
    assert c.ceased
    assert cue("My ulcer healed up years ago.", "ulcer").ceased
    # only a time may stand between: "in the mornings" is none
    assert not cue("I have a cough in the mornings that went away.", "cough").ceased
    # "My son says it's whiplash": the son speaks of the patient's complaint.
    assert not cue("My son says it's probably whiplash.", "whiplash").family
    assert cue("My son had whiplash.", "whiplash").family


def test_just_opens_what_is_had_and_seasons_past_are_historical() -> None:
    c = cue("I've never had pneumonia, just bronchitis a few winters.", "bronchitis")
    assert not c.negated
    assert cue("I've never had pneumonia, just bronchitis a few winters.", "pneumonia").negated
    assert cue("I had a real bad sore throat last winter.", "sore throat").historical
    assert cue("I had a rash a while back.", "rash").historical
    assert not cue("I have a sore throat this winter.", "sore throat").historical
    assert cue("Will it make me gain weight?", "gain weight").hypothetical


def test_a_relatives_place_is_not_whose_the_mention_is() -> None:
    text = "I was climbing through a fence at my uncle's farm and cut my leg on the wire."
    assert not cue(text, "cut my leg").family
    assert cue("My dad's hands were all twisted up with rheumatism.", "rheumatism").family
    assert cue("My mother's bad hip was replaced.", "hip").family


def test_staying_off_denies_and_dates_of_the_past() -> None:
    assert cue("I have a stomach ulcer, so I stay off Advil.", "Advil").negated
    assert cue("I stay away from aspirin because of my stomach.", "aspirin").negated
    assert not cue("I stay on aspirin.", "aspirin").negated
    for text, mention in [
        ("I had a sore throat in November, is that related?", "sore throat"),
        ("I had a bad cough in the spring.", "cough"),
        ("The itchy rash I had in '88 went away.", "rash"),
        ("In 1990 I had a stroke.", "stroke"),
        ("I blacked out once as a girl.", "blacked out"),
    ]:
        assert cue(text, mention).historical, text
    assert not cue("I take aspirin in the morning.", "aspirin").historical
    assert not cue("It may be asthma.", "asthma").historical  # "may" is no month here
    assert cue("Am I going to need a tetanus shot?", "tetanus shot").hypothetical


def test_a_word_of_another_mention_is_no_cue() -> None:
    text = "My heart stopped back in '61, cardiac arrest at 15."
    doc = NLP.make_doc(text)
    heart = doc.char_span(3, len("My heart stopped"))
    at = text.index("cardiac arrest")
    arrest = doc.char_span(at, at + len("cardiac arrest"))
    assert heart is not None and arrest is not None
    assert cues(doc, arrest).ceased  # read alone, "stopped" ends it
    assert not cues(doc, arrest, frozenset(range(heart.start, heart.end))).ceased
    assert cue("I stopped my warfarin, and the aspirin.", "aspirin").ceased


def test_asking_to_be_given_a_drug_or_a_procedure_claims_nothing() -> None:
    doc = NLP.make_doc("Percocet makes me nauseous. Can I have codeine instead?")
    at = doc.text.index("codeine")
    span = doc.char_span(at, at + len("codeine"))
    assert span is not None
    assert cues(doc, span, given=True).hypothetical  # a drug asked for
    assert not cues(doc, span).hypothetical  # "Could I have diabetes?" wonders
    again = NLP.make_doc("Can I have Cipro like last time?")
    cipro = again.char_span(11, 16)
    assert cipro is not None and not cues(again, cipro, given=True).hypothetical  # had it
    assert not cue("Could I have diabetes?", "diabetes").hypothetical
    # The question after a clause of its own; the clause before it is said, not asked.
    text = "Since the appendicitis is gone now, can I take Percocet for the pain at home?"
    assert cue(text, "Percocet").hypothetical
    assert not cue(text, "appendicitis").hypothetical
    # "my" in a phrase after the mention is a body part, not the thing had.
    text = "Should I get a bone scan? Or an MRI of my neck?"
    assert cue(text, "MRI").hypothetical
    assert not cue("Should I stop my Fosamax?", "Fosamax").hypothetical
    assert not cue("Should I get my MRI again?", "MRI").hypothetical
