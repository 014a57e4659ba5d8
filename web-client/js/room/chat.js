// The room's chat log (the panel itself is ../chat.js): the history a snapshot or resume
// carries and each message as it comes. Methods of RoomPage (page.js mixes them in).


export const chat = {
  /** The chat history a snapshot or a resume carries (the last messages, oldest first). */
  takeChat(list) {
    this.chat = list.map((m) => ({ id: m.id, name: m.name, text: m.text, at: m.at, user: m.user })).slice(-100);
  },

  onChat(msg) {
    const data = msg.data || msg;
    // A message may come both in a snapshot's history and live, around a (re)join.
    if (this.chat.some((m) => (data.id && m.id === data.id) || (m.at === data.at && m.user === data.user && m.text === data.text))) return;
    this.chat.push({ id: data.id, name: data.name, text: data.text, at: data.at, user: data.user });
    if (this.chat.length > 100) this.chat.shift();
    if (this.chatBox) this.chatBox.arrived(!!(this.me && data.user === this.me.id));  // the unread mark
    this.render();
  },
};
