/** The manifest the in-process interactive tests serve: one tool or prompt per step shape. */
export const INTERACTIVE_MANIFEST = `
server: { name: interactive, version: 1.0.0 }
tools:
  delete_order:
    kind: content
    description: Deletes an order after the user confirms.
    input:
      id: { type: integer }
    confirm: "Delete order {{id}}?"
    content:
      - text: "Deleted order {{id}}."

  quick_confirm:
    kind: content
    description: Asks for a confirmation it waits for only briefly.
    confirm: { message: Quick?, timeoutMs: 100 }
    content:
      - text: done

  trusting:
    kind: content
    description: Confirms where the client can show it, and goes on where it cannot.
    confirm: { message: Go ahead?, fallback: proceed }
    content:
      - text: went ahead

  file_ticket:
    kind: content
    description: Files a ticket with details the user gives.
    input:
      project: { type: string }
    ask:
      message: "New ticket in {{project}}"
      fields:
        title: { type: string, title: Title, default: Untitled }
        priority:
          type: string
          oneOf: [{ const: p1, title: Urgent }, { const: p2, title: Normal }]
          default: p2
        labels: { type: array, items: { type: string, enum: [bug, ui, docs] }, required: false }
        estimate: { type: integer, minimum: 1, required: false }
    confirm: "File {{title}} ({{priority}}) in {{project}}?"
    content:
      - text: "Filed {{title}} as {{priority}} in {{project}}{{#if labels}} with labels {{labels}}{{/if}}."

  summarize:
    kind: content
    description: Summarizes a text with the client's model.
    input:
      text: { type: string }
    sample: { prompt: "Summarize in one line: {{result}}", maxTokens: 40, systemPrompt: You are terse. }
    content:
      - text: "{{text}}"

  translate:
    kind: content
    description: Translates a text with the client's model, then shows it.
    input:
      text: { type: string }
    sample: { prompt: "Translate to French: {{text}}", maxTokens: 40, into: french }
    content:
      - text: "French: {{french}}"

  where:
    kind: shell
    description: Prints its working folder, which is the client's first root.
    roots: true
    cwd: "{{root}}"
    command: [node, -e, "console.error('working in ' + process.cwd()); console.log(process.cwd())"]

  counted:
    kind: shell
    description: Appends a line to runs.txt each time it runs; the model words the count.
    command:
      - node
      - -e
      - "const fs = require('fs'); fs.appendFileSync('runs.txt', 'run\\\\n'); console.error('ran'); console.log(fs.readFileSync('runs.txt', 'utf8').trim().split('\\\\n').length)"
    sample: { prompt: "Say how many runs there were: {{result}}", maxTokens: 20 }

  greet_everything:
    kind: content
    description: Asks the client's roots, the user and the client's model, all at once.
    roots: true
    ask: { key: who, message: Who are you?, fields: { name: { type: string } } }
    sample: { prompt: Write a one-word greeting., maxTokens: 20, into: greeting }
    content:
      - text: "{{greeting}}, {{name}}! (the client shares {{roots.length}} roots)"

prompts:
  write_story:
    description: A story about a topic the user picks.
    arguments:
      style: { description: The style of the story }
    ask:
      key: topic_form
      message: What should the story be about?
      fields:
        topic: { type: string }
    messages:
      - text: "Write a {{style}} story about {{topic}}."
`;

export const INTERACTIVE_FILES = { 'work/keep.txt': 'a folder the client may share as a root\n' };
