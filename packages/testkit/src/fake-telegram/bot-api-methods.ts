// Every method of the Bot API (as of 9.x). A name outside this list is answered 404 like on the
// real server; a listed name the fake does not simulate gets a loud 501 so a test never passes
// against a method that silently did nothing.
const NAMES = `
  addStickerToSet answerCallbackQuery answerChatJoinRequestQuery answerGuestQuery answerInlineQuery
  answerPreCheckoutQuery answerShippingQuery answerWebAppQuery approveChatJoinRequest approveSuggestedPost
  banChatMember banChatSenderChat close closeForumTopic closeGeneralForumTopic convertGiftToStars copyMessage
  copyMessages createChatInviteLink createChatSubscriptionInviteLink createForumTopic createInvoiceLink
  createNewStickerSet declineChatJoinRequest declineSuggestedPost deleteAllMessageReactions
  deleteBusinessMessages deleteChatPhoto deleteChatStickerSet deleteEphemeralMessage deleteForumTopic
  deleteMessage deleteMessageReaction deleteMessages deleteMyCommands deleteStickerFromSet deleteStickerSet
  deleteStory deleteWebhook editChatInviteLink editChatSubscriptionInviteLink editEphemeralMessageCaption
  editEphemeralMessageMedia editEphemeralMessageReplyMarkup editEphemeralMessageText editForumTopic
  editGeneralForumTopic editMessageCaption editMessageChecklist editMessageLiveLocation editMessageMedia
  editMessageReplyMarkup editMessageText editStory editUserStarSubscription exportChatInviteLink
  forwardMessage forwardMessages getAvailableGifts getBusinessAccountGifts getBusinessAccountStarBalance
  getBusinessConnection getChat getChatAdministrators getChatGifts getChatMember getChatMemberCount
  getChatMenuButton getCustomEmojiStickers getFile getForumTopicIconStickers getGameHighScores
  getManagedBotAccessSettings getManagedBotToken getMe getMyCommands getMyDefaultAdministratorRights
  getMyDescription getMyName getMyShortDescription getMyStarBalance getStarTransactions getStickerSet
  getUpdates getUserChatBoosts getUserGifts getUserPersonalChatMessages getUserProfileAudios
  getUserProfilePhotos getWebhookInfo giftPremiumSubscription hideGeneralForumTopic leaveChat logOut
  pinChatMessage postStory promoteChatMember readBusinessMessage refundStarPayment
  removeBusinessAccountProfilePhoto removeChatVerification removeMyProfilePhoto removeUserVerification
  reopenForumTopic reopenGeneralForumTopic replaceManagedBotToken replaceStickerInSet repostStory
  restrictChatMember revokeChatInviteLink savePreparedInlineMessage savePreparedKeyboardButton sendAnimation
  sendAudio sendChatAction sendChatJoinRequestWebApp sendChecklist sendContact sendDice sendDocument sendGame
  sendGift sendInvoice sendLivePhoto sendLocation sendMediaGroup sendMessage sendMessageDraft sendPaidMedia
  sendPhoto sendPoll sendRichMessage sendRichMessageDraft sendSticker sendVenue sendVideo sendVideoNote
  sendVoice setBusinessAccountBio setBusinessAccountGiftSettings setBusinessAccountName
  setBusinessAccountProfilePhoto setBusinessAccountUsername setChatAdministratorCustomTitle setChatDescription
  setChatMemberTag setChatMenuButton setChatPermissions setChatPhoto setChatStickerSet setChatTitle
  setCustomEmojiStickerSetThumbnail setGameScore setManagedBotAccessSettings setMessageReaction setMyCommands
  setMyDefaultAdministratorRights setMyDescription setMyName setMyProfilePhoto setMyShortDescription
  setPassportDataErrors setStickerEmojiList setStickerKeywords setStickerMaskPosition setStickerPositionInSet
  setStickerSetThumbnail setStickerSetTitle setUserEmojiStatus setWebhook stopMessageLiveLocation stopPoll
  transferBusinessAccountStars transferGift unbanChatMember unbanChatSenderChat unhideGeneralForumTopic
  unpinAllChatMessages unpinAllForumTopicMessages unpinAllGeneralForumTopicMessages unpinChatMessage
  upgradeGift uploadStickerFile verifyChat verifyUser
`;

const CANONICAL = new Map(
  NAMES.split(/\s+/)
    .filter(Boolean)
    .map((name) => [name.toLowerCase(), name] as const),
);

/** Method names are case-insensitive on the real server; returns the documented spelling. */
export function canonicalMethod(name: string): string | undefined {
  return CANONICAL.get(name.toLowerCase());
}
